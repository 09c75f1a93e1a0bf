# %% define
total = 3
names = ["ada", "grace"]

# %% change
total = total + 1
