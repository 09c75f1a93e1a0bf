# %time, %%time and %env as notebooks use them: alone, among other lines
# and in blocks.

# %% time an expression
%time sum(range(10))

# %% time statements among lines
a = 2
%time b = a * 21
print(b)
%time b + 1

# %% time several statements
%time c = 1; d = c + 1; d * 10

# %% time silenced
%time 5 * 5;

# %% time a cell ending in a statement
%%time
e = [i * i for i in range(5)]
f = sum(e)

# %% time a cell's value
%%time
g = 7
g * 6

# %% time in a block
for i in range(2):
    %time h = i * 3
h

# %% time an error
%time 1 / 0

# %% env set
%env BACKYARD_MONTY_A=one
%env BACKYARD_MONTY_B two words

# %% env get
%env BACKYARD_MONTY_A

# %% env in a block
import os
if True:
    %env BACKYARD_MONTY_C=3
print(os.environ["BACKYARD_MONTY_C"], os.getenv("BACKYARD_MONTY_B"))

# %% env assigned
value = %env BACKYARD_MONTY_A
value.upper()

# %% env missing
%env BACKYARD_MONTY_MISSING

# %% set_env usage
%set_env JUSTONE

# %% unknown magic among lines
before = 1
%nosuchmagic now
before = 2

# %% after the error
before

# %% time and who in a block
if before:
    %time y = before + 1
    %who int
y

# %% unknown magic assigned
v = %nosuchmagic
v

# %% time nothing
%time
print("after")

# %% time a cell that raises
%%time
print("hi")
1 / 0

# %% time assigned
z = %time 7 * 6
z

# %% time with comments
%time k = 1  # one
%time 2 + 2  # four

# %% env with an empty name
%env  SPACED
