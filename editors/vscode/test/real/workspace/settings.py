# %% value
6 * 7

# %% loop
while True:
    pass
