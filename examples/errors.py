# %% [markdown]
# # Errors
# What failing cells look like. Each error is a result of its cell; the
# kernel and the names defined so far survive it.

# %%
def ratio(a, b):
    return a / b

ratios = [ratio(10, n) for n in (1, 2, 5)]
ratios

# %% A division by zero two frames deep
def normalise(values):
    total = sum(values)
    return [ratio(v, total) for v in values]

normalise([0, 0])

# %% The kernel is still alive, state kept
len(ratios)

# %% A missing key
config = {"name": "demo"}
config["port"]

# %% Handled errors are ordinary Python
try:
    int("forty-two")
except ValueError as e:
    print("could not parse:", e)
