# IPython's %alias and %unalias, and its default shell aliases on Linux
# (%ls, %cat, %mkdir, %rm, %cp, %mv, %rmdir, ...), which run in the sandbox
# as ! lines do.

# %% the default aliases
aliases = %alias
" ".join(name for name, _ in aliases), dict(aliases)["ls"]

# %% an alias with the whole line
%alias bracket echo "[%l]"
%bracket one two

# %% an alias with arguments
%alias parts echo first %s second %s
%parts A B C

# %% too few arguments
%parts A

# %% %s and %l together
%alias both echo %s %l

# %% an alias of a magic
%alias pwd echo

# %% an alias of a name IPython keeps
%alias cd echo

# %% an alias without a command
%alias lonely

# %% aliases expand names
v = 5
%bracket $v {v + 1}

# %% the table with the new ones
aliases = %alias
dict(aliases)["bracket"], dict(aliases)["parts"]

# %% unalias
%unalias bracket
%bracket x

# %% unalias a missing alias
%unalias nothing_here

# %% mkdir and ls
%mkdir adir
%mkdir adir/inner
%cd -q adir
%ls
%cd -q ..

# %% a file to copy
%%writefile afile.txt
some text

# %% cp mv cat
import os
%cp afile.txt bfile.txt
%mv bfile.txt adir/cfile.txt
%cat adir/cfile.txt
sorted(os.listdir("adir"))

# %% rm and rmdir
%rm adir/cfile.txt
%rmdir adir/inner
os.listdir("adir")

# %% cat of a missing file
%cat no_such_file

# %% an alias in a block
for name in ["x", "y"]:
    %parts $name z

# %% an alias as a value
%mkdir adir/only
%cd -q adir
listing = %ls
%cd -q ..
listing

# %% several folders
# (folders in the current one: runsc's statx refuses ls a named path or a
# file's type here)
import os
for name in ["alpha", "beta", "gamma", "delta", "a longer name", "sub"]:
    os.makedirs("many/" + name)
%cd -q many

# %% ls lists them in columns, as on a terminal
%ls

# %% a shell line on a terminal too
!ls

# %% automagic ls
ls

# %% through a pipe, one a line
!ls | cat

# %% captured, one a line
files = !ls
%cd -q ..
files
