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

# %% the javascript cell magic
%%javascript
console.log(1)

# %% the js cell magic
%%js
console.log(2)

# %% whos of an array
%reset -f
arr = __import__("numpy").arange(6).reshape(2, 3)
items = [1, 2]
%whos

# %% who_ls by type
%who_ls list

# %% capture show
%%capture cap
print("out")
import sys
print("err", file=sys.stderr)

# %% captured show
cap.show()

# %% captured call
cap()

# %% captured outputs
len(cap.outputs), cap.stderr

# %% writefile twice
%%writefile twice.txt
one

# %% writefile append
%%writefile -a twice.txt
two

# %% script out
%%script bash --out script_out
echo captured

# %% script out value
script_out

# %% script err
%%script bash --err script_err
echo to err 1>&2

# %% script err value
script_err

# %% a script with arguments
%%writefile args_script.py
import sys
print(sys.argv[1:], __name__)
result = 7

# %% run with arguments
%run args_script.py a b
result

# %% a script that reads the notebook's names
%%writefile uses_shared.py
print(shared)

# %% run -i it
shared = 5
%run -i uses_shared.py

# %% load_ext missing
%load_ext no_such_extension_xyz

# %% env list type
env = %env
type(env).__name__

# %% who empty filter
%who float

# %% time assignment value
%time y = 3
y

# %% timeit bad option
%timeit -z 1

# %% sx list
files = %sx printf 'a\nb\n'
files.n

# %% bang dollar
v = "x y"
!echo $v

# %% bang braces expr
!echo {1 + 2}

# %% a script named without .py
%%writefile named_script.py
z = 10 * 3
print("z is:", z)

# %% run finds NAME.py
%run named_script

# %% its names are the notebook's
z
