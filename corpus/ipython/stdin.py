# input() in a kernel whose front end gives no stdin: IPython's kernel
# raises StdinNotImplementedError at once, before any prompt is shown.

# %% input with a prompt
name = input("What is your name? ")

# %% the name was not bound
"name" in dir()

# %% caught
try:
    input()
except Exception as e:
    caught = type(e).__name__
caught
