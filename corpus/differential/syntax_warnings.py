# %% [markdown]
# CPython warns at compile time of a comparison with a literal through is.

# %% is with a literal
n = 1000
print(n is 1000, n is not "a")
