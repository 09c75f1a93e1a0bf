# IPython's autoreload extension: its magics are there only once
# %load_ext autoreload loaded it, and it stays loaded. In auto mode the
# first cells run on Monty, a shell line moves the document to the
# container, and the extension is loaded there as it was on Monty.

# %% autoreload before the extension is loaded
%autoreload 2

# %% aimport before
%aimport json

# %% lsmagic before
listing = %lsmagic
"%autoreload" in listing, "%aimport" in listing

# %% lsmagic's dict before
classes = %lsmagic -j
"autoreload" in classes["line"], "aimport" in classes["line"]

# %% unload before
%unload_ext autoreload

# %% a line before the load in the same cell
%autoreload 1
%load_ext autoreload

# %% still not loaded
%autoreload

# %% load, then its magic in the same cell
x = 1
%load_ext autoreload
%autoreload 2
x

# %% load again
%load_ext autoreload

# %% reload
%reload_ext autoreload

# %% lsmagic after
listing = %lsmagic
"%autoreload" in listing, "%aimport" in listing

# %% lsmagic's dict after
classes = %lsmagic -j
classes["line"]["autoreload"], classes["line"]["aimport"], list(classes["line"])[-3:]

# %% a shell line moves the document
!echo moved

# %% load in the container
%load_ext autoreload

# %% unload
%unload_ext autoreload

# %% still loaded
%autoreload 2

# %% aimport
%aimport json
json.dumps([1])

# %% lsmagic in the container
listing = %lsmagic
"%autoreload" in listing, "%aimport" in listing
