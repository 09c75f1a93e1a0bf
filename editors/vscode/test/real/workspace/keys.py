# %% a
a = 1
a

# %% b
b = a + 1
b
