# Automagic: a cell of one line that starts with a line magic's name runs
# that magic, unless the name is bound in the namespace, the line assigns
# to it, or %automagic turned it off.

# %% who with nothing bound
who

# %% a variable
x = 1

# %% who
who

# %% a name that shadows a magic
who = "me"

# %% the variable, not the magic
who

# %% the name goes
del who

# %% the magic again
who

# %% del and who in one cell: two lines are Python
who = 1
del who
who

# %% who in a cell of two lines is Python
y = 2
who

# %% env sets a variable
env BACKYARD_AUTOMAGIC=1

# %% env reads it
env BACKYARD_AUTOMAGIC

# %% an assignment to a magic's name
ls = "listing"

# %% ls is the variable
ls

# %% del ls
del ls

# %% mkdir and cd
mkdir sub
# %% cd quietly
cd -q sub

# %% where
import os
os.path.basename(os.getcwd())

# %% cd back
cd -q ..

# %% ls lists the folder
ls

# %% a unpacking assignment
cd, z = 1, 2
cd + z

# %% an alias of one's own
alias hello echo hello

# %% runs without %
hello

# %% automagic off
automagic off

# %% who is Python now
who

# %% automagic back on
%automagic

# %% who again
who
