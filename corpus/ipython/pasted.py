# A session pasted into a cell: IPython removes the prompts of Python's
# console (>>> and ...) and of its own (In [N]: and ...:), and the
# indentation every line shares, before it runs the cell.

# %% Python's prompts
>>> total = 0
>>> for n in range(4):
...     total += n
>>> total

# %% comments and continuation lines
>>> # the first squares
... squares = [n * n for n in range(5)]
>>> squares

# %% an indented doctest
    >>> word = "pasted"
    >>> word.upper()

# %% an output line stays as code
>>> 6 * 7
42

# %% IPython's prompts
In [1]: for i in range(3):
   ...:     print(i, end=' ')
   ...:

# %% a prompt on the second line only
size = 3
   ...: size * 2

# %% a magic after a prompt
In [7]: %who_ls int

# %% a shell escape after a prompt
In [8]: !echo from the shell

# %% a common indentation
    a = 1
    b = 2
    a + b

# %% an Ellipsis is not a prompt
x = ...
...
