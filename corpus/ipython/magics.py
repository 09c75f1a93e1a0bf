# Magics and shell escapes as Jupyter users write them.

# %% time a statement
%time total = sum(range(100))
total

# %% time a cell
%%time
squares = [i * i for i in range(10)]
sum(squares)

# %% timeit
%timeit -n 5 -r 3 sum(range(10))

# %% timeit a cell
%%timeit -n 2 -r 2 base = 3
base ** 2

# %% shell
!echo hello from the shell

# %% shell output
lines = !printf 'b\na\n'
sorted(lines)

# %% shell expansion
name = "world"
!echo hello $name {name.upper()}

# %% bash
%%bash
echo out
echo err 1>&2

# %% env
%env BACKYARD_CORPUS=1
import os
os.environ["BACKYARD_CORPUS"]

# %% precision
%precision 2
3.14159

# %% precision back
%precision
2 / 3

# %% writefile
%%writefile corpus_note.txt
hello

# %% read back
open("corpus_note.txt").read()

# %% capture
%%capture captured
print("hidden")

# %% captured
captured.stdout

# %% unknown line magic
%nosuchmagic

# %% unknown cell magic
%%nosuchcell
x = 1

# %% xmode
%xmode Plain

# %% indented shell line
for i in range(2):
    !echo line {i}

# %% magic in an assignment
t = %timeit -o -q -n 1 -r 1 pass
type(t).__name__

# %% percent operator
"%d%%" % 50

# %% who
%reset -f
a_value = 1
another = "x"
%who

# %% reset
%reset -f
%who
