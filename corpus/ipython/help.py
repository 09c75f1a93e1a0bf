# Help on an expression, as IPython 9 reads `expr?`: the name just before
# the `?` (after the last call or subscript) is what it looks up.

# %% a call's attribute
from collections import namedtuple
Point = namedtuple("Point", "x y")
Point(1, 2).x?

# %% the name after a call is the namespace's
x = [1, 2]
Point(1, 2).x?

# %% a dotted name after a call
point = Point(3, 4)
Point(1, 2).point.x??

# %% an integer subscript
x[0]?

# %% the line is the help, the rest of the cell runs
count = 3
Point(0, 0).count?
count + 1
