# %% Grades with bisect
import bisect
breakpoints = [60, 70, 80, 90]
grades = "FDCBA"

def grade(score):
    return grades[bisect.bisect(breakpoints, score)]

[grade(s) for s in (33, 59, 60, 75, 89, 90, 100)]

# %% Keep a sorted list while inserting
scores = []
for s in [71, 42, 99, 58, 71, 86]:
    bisect.insort(scores, s)
scores

# %% Left and right positions of duplicates
bisect.bisect_left(scores, 71), bisect.bisect_right(scores, 71)

# %% Count in a range
def count_between(xs, lo, hi):
    return bisect.bisect_right(xs, hi) - bisect.bisect_left(xs, lo)

count_between(scores, 50, 80)

# %% Nearest value
def nearest(xs, x):
    i = bisect.bisect_left(xs, x)
    candidates = xs[max(0, i - 1):i + 1]
    return min(candidates, key=lambda v: (abs(v - x), v))

[nearest(scores, x) for x in (0, 64, 80, 1000)]

# %% Sorted with a key (Python 3.10+)
people = [("ana", 31), ("bo", 25), ("cy", 40)]
people.sort(key=lambda p: p[1])
bisect.bisect(people, 30, key=lambda p: p[1])

# %% Histogram by bucket
from collections import Counter
Counter(grade(s) for s in scores)
