# Packaging, extension, history and pager line magics, as IPython answers them.

# %% conda
%conda install numpy

# %% mamba
%mamba list

# %% micromamba
%micromamba

# %% reset_selective
aa1 = 1; aa2 = 2; bb = 3
%reset_selective -f aa
'aa1' in dir(), 'aa2' in dir(), 'bb' in dir()

# %% reset_selective without a pattern
%reset_selective -f

# %% unload_ext of one not loaded
%unload_ext nosuch_ext

# %% an extension of the notebook's
%%writefile myext.py
def load_ipython_extension(ip):
    print("loaded")

def unload_ipython_extension(ip):
    print("unloaded")

# %% load it
import sys
sys.path.insert(0, ".")
%load_ext myext

# %% load it again
%load_ext myext

# %% unload it
%unload_ext myext

# %% unload it again
%unload_ext myext

# %% reload it
%reload_ext myext

# %% load_ext without a name
%load_ext

# %% loadpy
%loadpy myext.py

# %% loadpy missing
%loadpy nosuchfile.py

# %% a value
n = 20
n + 1

# %% recall
%recall

# %% recall a range
%recall 12

# %% recall an expression
greeting = "hi there"
%recall greeting

# %% recall by text
# (IPython searches the history of its earlier sessions too: the word is
# this notebook's alone.)
%rep encore

# %% recall nothing
%recall zzzz_nothing

# %% a cell to run again
print("encore", n)

# %% recall by text now
%rep encore

# %% rerun
%rerun

# %% rerun a range
%rerun 18

# %% rerun by text
%rerun -g encore

# %% rerun -l
%rerun -l 1

# %% rerun -l 0
%rerun -l 0

# %% rerun nothing
%rerun -g zzzz_nothing

# %% pycat
%pycat myext.py

# %% pycat missing
%pycat nosuch.py

# %% page
%page [1,2]

# %% page a name
big = {"k%02d" % i: list(range(i)) for i in range(8)}
%page big

# %% page raw
s = "a\nb"
%page -r s

# %% doctest mode
%doctest_mode

# %% a value in doctest mode
[1, 2] * 30

# %% a rich value in doctest mode
from IPython.display import HTML, display
HTML("<b>b</b>")

# %% a display in doctest mode
display(HTML("<i>i</i>"))

# %% an error in doctest mode
1 / 0

# %% doctest mode off
%doctest_mode

# %% a value after it
[1, 2] * 30

# %% a rich value after it
HTML("<b>b</b>")

# %% rehashx
%rehashx

# %% an executable on PATH as a line magic
%echo from an alias

# %% its class
m = %lsmagic -j
m["line"]["echo"], m["line"]["ls"], m["line"]["pwd"]
