# %tb shows the last exception, whichever earlier cell raised it and
# whatever cells ran since.

# %% a cell that works
x = 1

# %% a name no cell defined
undefined_name + x

# %% a cell that works after it
x + 1

# %% tb shows the NameError
%tb

# %% an unknown magic
%not_a_magic_here

# %% tb shows its usage error
%tb
