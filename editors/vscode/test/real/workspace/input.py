# %% ask
name = input("name? ")
name
