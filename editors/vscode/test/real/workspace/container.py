# %% where
import sys
sys.version_info[:2]

# %% numbers
import numpy as np
a = np.arange(6).reshape(2, 3)
a.sum(axis=0)
