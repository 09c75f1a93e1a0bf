# %% [markdown]
# Linear algebra on matrices stored as text files, with numpy.

# %% Load a CSV matrix
import numpy as np
m = np.loadtxt("m.csv", delimiter=",")
m

# %% Shape and properties
m.shape, m.dtype, bool(np.allclose(m, m.T))

# %% Solve m x = b
b = np.array([1.0, 2.0, 3.0])
x = np.linalg.solve(m, b)
np.round(x, 6)

# %% Check the solution
bool(np.allclose(m @ x, b)), round(float(np.linalg.det(m)), 6)

# %% Readings with comments skipped, selected columns
temps = np.loadtxt("readings.txt", usecols=(1, 2))
temps[:, 0].mean(), temps[:, 1].max(), temps.shape

# %% Structured load with a header
grid = np.genfromtxt("grid.tsv", delimiter="\t", names=True)
grid.dtype.names, grid["z"].sum()

# %% Save the inverse and read it back
inv = np.linalg.inv(m)
np.savetxt("m_inv.csv", inv, delimiter=",", fmt="%.6f")
print(open("m_inv.csv").read(), end="")
bool(np.allclose(np.loadtxt("m_inv.csv", delimiter=",") @ m, np.eye(3), atol=1e-5))

# %% Binary .npy round trip
np.save("m.npy", m)
np.load("m.npy").tolist()

# %% A missing file
np.loadtxt("missing.csv")

# %% Bad data raises
import io
np.loadtxt(io.StringIO("1,2\n3,x\n"), delimiter=",")
