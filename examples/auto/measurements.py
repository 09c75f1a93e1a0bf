# %% [markdown]
# # Sensor readings
# The first cells are plain Python and run on Monty in microseconds; the
# numpy cell needs full CPython, so the document moves to the container with
# the names defined so far. Run with the container backend available
# (Docker or Podman; `backyard-ls doctor` tells).

# %% Parse the readings
raw = """t,temp,humidity
0,21.5,40
1,21.7,41
2,22.4,39
3,23.9,37
4,24.1,36
5,23.2,38"""
rows = [line.split(",") for line in raw.splitlines()[1:]]
temps = [float(r[1]) for r in rows]
hums = [int(r[2]) for r in rows]
len(temps)

# %% Summary in plain Python
mean_t = sum(temps) / len(temps)
print(f"mean temperature {mean_t:.2f}, max {max(temps)}, min humidity {min(hums)}")

# %% Rising spells
spells, cur = [], 1
for a, b in zip(temps, temps[1:]):
    if b > a:
        cur += 1
    else:
        spells.append(cur)
        cur = 1
spells.append(cur)
max(spells)

# %% numpy: correlation (moves the document to the container)
import numpy as np
t = np.array(temps)
h = np.array(hums)
round(float(np.corrcoef(t, h)[0, 1]), 3)

# %% Back to plain Python, now in the container
[round(x - mean_t, 1) for x in temps]
