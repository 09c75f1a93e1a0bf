# The namespace as IPython's %who and %whos list it.

# %% empty
%whos

# %% variables
n = 42
name = "monty"
items = [1, 2, 3]
pair = (1, 2)
mapping = {"a": 1}
ratio = 0.5
flag = True
nothing = None
long_text = "x" * 30 + "y" * 30
multi = "a\nb"
%whos

# %% by type
%whos int str

# %% who by type
%who list tuple

# %% no match
%whos complex

# %% who among lines
def helper():
    return n
_hidden = 1
%who
helper() + 1

# %% precision default
%precision

# %% lsmagic's dict of magics and their classes
m = %lsmagic -j
sorted(m), m["line"]["pwd"], m["line"]["ls"], m["line"]["lsmagic"], m["cell"]["bash"]

# %% lsmagic with an option it has not
%lsmagic --xml
