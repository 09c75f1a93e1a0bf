# %debug in a kernel whose front end sends no input: the debugger shows
# where the exception was raised (five lines around it, as IPython's
# debugger lists them), then its prompt meets StdinNotImplementedError.
# (An error with %pdb on also lists where the prompt's own error was
# raised, in the kernel's code: install paths, so not recorded here;
# TestIPythonPdbWithoutStdin has it.)

# %% a function that fails
def ratio(a, b):
    total = a + b
    share = a / b
    return share, total


def report(values):
    out = []
    for a, b in values:
        out.append(ratio(a, b))
    return out

# %% the error
report([(1, 2), (3, 0)])

# %% post mortem
%debug

# %% a short cell
def f():
    return 1 / 0
f()

# %% post mortem of a short cell
%debug

# %% a line near the end of its cell
def g(x):
    y = x * 2
    z = y - 1
    w = z + 3
    v = w * 4
    u = v - 5
    return u / 0
g(1)

# %% post mortem near the end
%debug

# %% automatic pdb
%pdb on

# %% pdb off
%pdb off
g(1)
