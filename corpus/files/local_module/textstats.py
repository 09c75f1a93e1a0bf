"""Helpers imported by the notebook beside this file."""
import re

WORD = re.compile(r"[\w']+")


def words(text):
    return [w.lower() for w in WORD.findall(text)]


def top(text, n=3):
    counts = {}
    for w in words(text):
        counts[w] = counts.get(w, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
