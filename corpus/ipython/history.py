# IPython's history names: In and the _i names before a cell runs, Out and
# the _ names after it showed a value.

# %% before any value
_, __, ___, Out, _i, _ii

# %% a value
10

# %% no value
x = 5

# %% more values
20

# %% a fourth
x * 6

# %% the last three
_, __, ___

# %% by number
_2, _4, _5, Out[6]

# %% inputs
_i, _ii, _iii

# %% by number too
_i2, _i3

# %% In holds every cell, this one too
len(In), In[-1], In[2], _ih[3], In is _ih or type(In) is list

# %% a cell without a value has no _N
_3

# %% None is not kept
None

# %% nor a value a semicolon hides
x;

# %% the same outputs
sorted(Out), _oh is Out

# %% a statement after a value keeps none
y = _2 + 1
y

# %% kept as the last value
_

# %% history of a cell with magics, as IPython transforms it
p = %pwd
_i17

# %% a loop variable named _
for _ in range(3):
    pass

# %% a value after it
20

# %% the _ names stay as the cell left them
_, __, ___, _19

# %% the directory history: the working directory
from pathlib import Path
len(_dh), _dh[0] == Path.cwd(), type(_dh[0]).__name__
