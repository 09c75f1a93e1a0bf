# IPython's output history before any cell showed a value: Out is an
# empty dict and _, __ and ___ are empty strings.

# %% Out before any value
Out

# %% the last values before any
_, __, ___

# %% Out after values
1 + 1

# %% Out holds them
Out
