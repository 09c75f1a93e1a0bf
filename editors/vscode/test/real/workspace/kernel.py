# %% setup
n = 5
n

# %% loop
i = 0
while True:
    i += 1
