# %% Comparing two versions of a text with difflib
import difflib
old = """apples 3
bananas 12
cherries 7
dates 1
elderberries 2""".splitlines()
new = """apples 3
bananas 10
cherries 7
figs 4
elderberries 2""".splitlines()
print("\n".join(difflib.unified_diff(old, new, "before", "after", lineterm="")))

# %% ndiff shows intra-line hints
print("\n".join(difflib.ndiff(["the quick brown fox"], ["the quick brown cat"])))

# %% Similarity ratio
s = difflib.SequenceMatcher(None, "kitten", "sitting")
round(s.ratio(), 4), s.get_opcodes()

# %% Close matches for a typo
words = ["python", "pyramid", "typhoon", "jython", "cython", "pythonic"]
difflib.get_close_matches("pyton", words, n=3)

# %% Edit distance by dynamic programming
def levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]

[(w, levenshtein("pyton", w)) for w in words]

# %% Changed lines only
changed = [l[2:] for l in difflib.ndiff(old, new) if l.startswith(("+ ", "- "))]
changed
