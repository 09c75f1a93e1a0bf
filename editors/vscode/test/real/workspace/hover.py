# %% ok
print("line one")
print("line two")
21 * 2

# %% error
def f(n):
    return 10 / n

f(0)
