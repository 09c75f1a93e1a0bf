# %% [markdown]
# A notebook that imports a helper module kept in its own folder.

# %% Import the local module
import textstats
textstats.__name__, textstats.__doc__

# %% Use it on a file
text = open("austen.txt").read()
textstats.top(text, 4)

# %% Word count
len(textstats.words(text))

# %% The module's file is beside the notebook
import os
os.path.relpath(textstats.__file__, os.getcwd())

# %% importlib finds it too
import importlib.util
spec = importlib.util.find_spec("textstats")
spec.name, os.path.basename(spec.origin)

# %% A module that is not there
import textstats_v2
