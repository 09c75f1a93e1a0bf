# %% Statistics by hand
data = [2.5, 3.1, 4.7, 1.2, 9.8, 5.5]
n = len(data)
mean = sum(data) / n
var = sum((x - mean) ** 2 for x in data) / (n - 1)
print(f"n={n} mean={mean:.3f} var={var:.3f}")

# %% numpy agrees
import numpy as np
arr = np.array(data)
print(f"{arr.mean():.3f} {arr.var(ddof=1):.3f}")
bool(abs(arr.mean() - mean) < 1e-12)

# %% Back to plain Python, in the container now
sorted(data)[n // 2]

# %% Integer maths
2 ** 100, 7 // 2, -7 // 2, divmod(17, 5)
