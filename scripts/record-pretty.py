#!/usr/bin/env python3
"""Records how IPython's pretty printer lays out random sequences of its
primitives (text, breakable, break_, begin_group, end_group, indent), for
pysrc.Pretty's test.

    python -m venv v && v/bin/pip install ipython
    v/bin/python scripts/record-pretty.py   # writes pysrc/testdata/pretty.json
"""

import io
import json
import os
import random

import IPython
from IPython.lib.pretty import PrettyPrinter
from pretty_ops import replay


def ops(r, depth=0):
    out = []
    for _ in range(r.randrange(0, 7 if depth < 3 else 3)):
        k = r.random()
        if k < 0.35:
            out.append(["text", r.choice(["x", "ab", "é", "word" * r.randrange(1, 4), ",", "]", "'" + "s" * r.randrange(0, 25) + "'"])])
        elif k < 0.6:
            out.append(["breakable", r.choice([" ", "", "  "])])
        elif k < 0.64:
            out.append(["break"])
        elif k < 0.68:
            out.append(["indent", r.randrange(-2, 5)])
        else:
            n = r.randrange(0, 12)
            out.append(["begin", n, r.choice(["", "[", "(", "{", "Name("])])
            out += ops(r, depth + 1)
            out.append(["end", n, r.choice(["", "]", ")", "}"])])
    return out


def layout(seq, width):
    s = io.StringIO()
    p = PrettyPrinter(s, max_width=width)
    replay(p, seq)
    return s.getvalue()


def main():
    r = random.Random(25)
    cases = []
    while len(cases) < 250:
        seq = ops(r)
        if not seq:
            continue
        width = r.choice([79, 20, 8])
        cases.append({"width": width, "ops": seq, "text": layout(seq, width)})
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pysrc", "testdata", "pretty.json")
    with open(path, "w") as f:
        json.dump({"ipython": IPython.__version__, "cases": cases}, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
