#!/usr/bin/env python3
"""IPython's own input transformation of the cells ipysyntax's benchmarks
use (pysrc/ipysyntax/ipysyntax_test.go): median nanoseconds per cell.

    v/bin/python bench/ipython_transform.py   (a venv with ipython)
"""

import statistics
import timeit

from IPython.core.inputtransformer2 import TransformerManager

PLAIN = '''import math

def area(r):
    """Area of a circle of radius r."""
    return math.pi * r ** 2

rows = [(r, area(r)) for r in range(10)]
for r, a in rows:
    print("%2d %8.2f" % (r, a))
total = sum(a for _, a in rows)
total
'''
MAGIC = "%matplotlib inline\n" + PLAIN + "%time area(3)\n!ls\n"

tm = TransformerManager()
for name, cell in (("plain", PLAIN), ("magic", MAGIC)):
    n = 200
    runs = timeit.repeat(lambda: tm.transform_cell(cell), number=n, repeat=15)
    print("%s %.0f ns/op" % (name, statistics.median(runs) / n * 1e9))
