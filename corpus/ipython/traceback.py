# %tb: the last exception's traceback again, which an IPython kernel sends
# as an error output while the cell itself succeeds.

# %% tb before any exception
%tb

# %% an exception
def f():
    return 1 / 0

f()

# %% tb shows it
%tb

# %% tb in another mode
%tb Plain

# %% a cell that prints and shows it
print("before")
%tb

# %% tb without its %
tb

# %% the next exception replaces it
int("x")

# %% tb
%tb

# %% a magic's bad option
%timeit -z x

# %% tb shows the usage error
%tb

# %% an unknown magic
%not_a_magic_here

# %% tb shows its usage error
%tb Plain
