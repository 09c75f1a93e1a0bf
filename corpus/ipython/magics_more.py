# More of IPython's built-in magics and help, as IPython answers them.

# %% help on a builtin
len?

# %% help on a list
numbers = [1, 2, 3]
numbers?

# %% help on a class
class Point:
    "A point."

    def __init__(self, x, y):
        "Make a point."
        self.x, self.y = x, y

    def __repr__(self):
        return "Point(%r, %r)" % (self.x, self.y)
Point?

# %% help on an instance
p = Point(1, 2)
p?

# %% help on a missing name
no_such_name?

# %% more help on a builtin
import math
math.floor??

# %% history as written
%history -n 1-2

# %% precision in containers
%precision 2
[1.23456, (2.5, {"a": 0.125})], {1.0}

# %% precision off
%precision
[0.5, 1 / 4]

# %% cd to a missing folder
%cd -q /no/such/folder

# %% directory stack
%dirs

# %% popd on an empty stack
%popd

# %% xdel
kept = gone = [1]
%xdel gone
"kept" in dir(), "gone" in dir()

# %% xdel of a missing name
%xdel nothing_here

# %% alias_magic
%alias_magic tt time
%tt 1 + 1

# %% reset the output cache
%reset -f out

# %% reset the input history
%reset -f in
_i

# %% reset an unknown target
%reset -f nothing

# %% soft reset
soft_a = 1
%reset -f -s
%who

# %% run a missing file
%run no_such_script.py

# %% timeit with nothing to time
%timeit

# %% a line magic used as a cell magic
%%pwd
x = 1

# %% svg keeps its element
%%svg
<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>

# %% python in its own process
%%python3
print("from a python3 process")

# %% file
%%file corpus_more.txt
text

# %% background scripts
%killbgscripts

# %% logging
%logstate

# %% objects to inspect
def f(a, b=2):
    return a + b

class C:
    "C doc."

def nodoc():
    pass

# %% pdef
%pdef f

# %% pdef class
%pdef C

# %% pdef not callable
%pdef 3

# %% pdoc class
%pdoc C

# %% pdoc function no doc
%pdoc nodoc

# %% pdoc missing
%pdoc nothing_here

# %% psource
%psource f

# %% pfile builtin
%pfile len

# %% js
%%javascript
console.log(1)

# %% js short
%%js
console.log(2)
