# %% stream
import time
print("first")
time.sleep(2)
print("second")
