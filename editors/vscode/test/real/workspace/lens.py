# %% first
x = 6 * 7
x

# %% second
print("hello from the second cell")
y = x + 1
