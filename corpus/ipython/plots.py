# Figures with IPython's inline backend: plt.show() shows each figure.

# %% inline backend
%matplotlib inline
import matplotlib.pyplot as plt

# %% a line plot
plt.plot([1, 3, 2])
plt.title("three points")
plt.show()

# %% two figures
for n in (2, 3):
    plt.figure()
    plt.bar(range(n), range(n))
plt.show()

# %% subplots
fig, axes = plt.subplots(1, 2)
axes[0].plot([0, 1])
axes[1].scatter([0, 1], [1, 0])
plt.show()
len(plt.get_fignums())

# %% a figure object displayed
fig = plt.figure(figsize=(3, 2))
fig.add_subplot().plot([2, 1])
display(fig)
plt.close(fig)

# %% a figure left open, its value hidden
plt.plot([3, 1, 2]);

# %% a figure left open after a value
plt.bar([0, 1], [2, 1])
len(plt.get_fignums())

# %% subplots left open
fig, axes = plt.subplots(2, 1)
len(plt.get_fignums())

# %% a figure of a cell that raised
plt.plot([1, 2])
print("before the error")
1 / 0

# %% none left open after the error
len(plt.get_fignums())

# %% figures of an interrupted loop
for n in range(3):
    plt.figure()
    plt.plot([n, 0])
    if n == 1:
        raise ValueError("stop at %d" % n)

# %% an empty figure left open
plt.figure()

# %% an empty figure shown
plt.figure()
plt.show()

# %% retina figures
%config InlineBackend.figure_format = 'retina'
plt.plot([1, 2])
plt.show()

# %% jpeg and png figures
%config InlineBackend.figure_formats = ['png', 'jpeg']
plt.plot([2, 1]);

# %% back to png
%config InlineBackend.figure_formats = ['png']
plt.plot([1]);

# %% capture a figure
%%capture drawn
plt.plot([3, 1, 2])
plt.title("captured")

# %% nothing shown yet
len(drawn.outputs)

# %% show it now
drawn()
