# %% [markdown]
# Plot monthly figures from a CSV and save the chart next to the notebook.

# %% Read the data
import csv
with open("monthly.csv") as f:
    rows = list(csv.DictReader(f))
months = [r["month"] for r in rows]
visitors = [int(r["visitors"]) for r in rows]
signups = [int(r["signups"]) for r in rows]
months

# %% Conversion rate
[f"{s / v:.2%}" for s, v in zip(signups, visitors)]

# %% Draw and save
import matplotlib
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(6, 3), dpi=100)
ax.bar(months, visitors, color="#4c72b0")
ax.set_title("Visitors per month")
ax.set_ylabel("visitors")
fig.savefig("chart.png")
plt.close(fig)

# %% The PNG header
import struct
with open("chart.png", "rb") as f:
    head = f.read(24)
head[:8], struct.unpack(">II", head[16:24])

# %% A second chart in a subfolder
import os
os.makedirs("out", exist_ok=True)
fig, ax = plt.subplots(figsize=(4, 4), dpi=50)
ax.plot(months, signups, marker="o")
fig.savefig(os.path.join("out", "signups.png"))
plt.close(fig)
sorted(os.listdir("out"))

# %% Figure size in pixels from the file
with open("out/signups.png", "rb") as f:
    f.seek(16)
    size = struct.unpack(">II", f.read(8))
size

# %% Which backend
matplotlib.get_backend().lower()

# %% Saving into a folder that does not exist
fig, ax = plt.subplots()
try:
    fig.savefig("no/such/dir/chart.png")
finally:
    plt.close(fig)
