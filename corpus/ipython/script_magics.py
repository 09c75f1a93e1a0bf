# The script cell magics (%%script and the programs' own), as IPython runs them.

# %% bash
%%bash
echo out
echo err 1>&2

# %% pypy
%%pypy
print(1)

# %% script missing prog
%%script no_such_prog_xyz
echo hi

# %% script nothing
%%script
echo hi

# %% script fails
%%script bash
exit 3

# %% script no raise
%%script bash --no-raise-error
exit 3

# %% script no newline
%%script cat
abc

# %% script out and err options before the program
%%script --out o2 --err e2 sh
echo one
echo two 1>&2

# %% their values
o2, e2

# %% script option missing value
%%script bash --out
echo x

# %% script bg
%%script bash --bg --out bgout --proc bgproc
echo from bg

# %% bg read
await bgproc.wait(), await bgout.read()

# %% killbg
%killbgscripts

# %% sh args
%%sh -s a b
echo "$1 $2"

# %% python3 with stdin
%%python3
import sys
print(sys.argv[1:] or "none")
