# %bookmark, %debug without a traceback, %%sx, %prun and %%prun, %pylab.

# %% debug before any error
%debug

# %% bookmarks empty
%bookmark -l

# %% bookmark a folder
%bookmark root /
%bookmark -l

# %% bookmark delete missing
%bookmark -d nothing

# %% bookmark delete without a name
%bookmark -d

# %% bookmark without a name
%bookmark

# %% bookmark too many
%bookmark a b c

# %% bookmark delete
%bookmark -d root
%bookmark -l

# %% cd to a missing bookmark
%cd -b nowhere

# %% cd to a bookmark
%bookmark dot .
%cd -q -b dot
%cd -q dot
%bookmark -r
%bookmark -l

# %% sx cell
%%sx
printf 'a\nb\n'

# %% sx cell out
%%sx --out lines
printf 'c\nd\n'

# %% sx cell out value
lines, lines.s

# %% prun quiet
%prun -q sum(range(10))

# %% prun
%prun sum(range(10))

# %% prun cell
%%prun
total = 0
for i in range(3):
    total += i

# %% prun sorted and limited (by name: an order by time changes with the load)
%prun -l 2 -s name sum(range(10))

# %% prun to a file
%prun -q -T prof.txt sum(range(10))
open("prof.txt").read().splitlines()[2]

# %% prun of a function
def work(n):
    return sum(i * i for i in range(n))

%prun -q -D prof.bin work(5)

# %% prun a bad option
%prun -z 1

# %% pylab
%pylab inline

# %% pylab names
type(np).__name__, type(plt).__name__, linspace(0, 1, 3)
