# %macro, %save and %load: code from the session's history, files and
# names. %load's code is the next input (a kernel's set_next_input).

# %% a shell line
!echo start

# %% lines for a macro
mx = 10
mx * 2

# %% a macro
%macro twice 1-2

# %% the macro object
type(twice).__name__, str(twice) == twice.value

# %% run the macro
twice

# %% a raw macro
%macro -r rawm 1

# %% a quiet macro of a range
%macro -q quiet 1:3
quiet.value

# %% macro of nothing
%macro empty 999

# %% macro of a missing name
%macro gone nothing_here

# %% macro with a name only
%macro onlyname

# %% the macros
%macro

# %% save lines
%save saved 1-2

# %% the saved file
print(open("saved.py").read())

# %% save over it
%save saved 1

# %% save forced
%save -f saved.py 1

# %% save appended
%save -a saved.py 2
print(open("saved.py").read())

# %% save raw
%save -r rawsaved 1
print(open("rawsaved.ipy").read())

# %% save a string
snippet = "print('from a string')"
%save snip snippet

# %% save without a file name
%save

# %% save of nothing
%save other.py nothing_at_all

# %% a text file
%%writefile afile.txt
some text

# %% load a file
%load afile.txt

# %% a module to load from
%%writefile two_funcs.py
def one():
    return 1


@staticmethod
def two():
    return 2

# %% load a range
%load -r 1-2 two_funcs.py

# %% load symbols
%load -s two two_funcs.py

# %% load history
%load 1

# %% load a macro
%load twice

# %% load a missing file
%load no_such_file.py

# %% load a folder
%mkdir a_folder
%load a_folder

# %% load from a URL that cannot be reached
%load http://127.0.0.1:9/no_such_script.py
