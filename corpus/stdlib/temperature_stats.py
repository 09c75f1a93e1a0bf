# %% A week of temperatures (°C)
readings = {
    "mon": [12.4, 15.1, 17.8, 14.2],
    "tue": [11.0, 13.9, 18.25, 16.6],
    "wed": [9.75, 12.5, 14.0, 11.3],
    "thu": [13.1, 17.45, 21.0, 18.9],
    "fri": [14.6, 18.2, 22.35, 19.05],
}
len(readings)

# %% Daily min, max, mean rounded to 2 places
summary = {d: (min(v), max(v), round(sum(v) / len(v), 2)) for d, v in readings.items()}
summary

# %% Fahrenheit
def to_f(c):
    return round(c * 9 / 5 + 32, 1)

{d: [to_f(c) for c in v] for d, v in readings.items()}["thu"]

# %% Warmest day
warmest = max(readings, key=lambda d: max(readings[d]))
warmest, max(readings[warmest])

# %% Daily range with round(x, 1)
[(d, round(max(v) - min(v), 1)) for d, v in readings.items()]

# %% Table
print(f"{'day':<4}{'min':>7}{'max':>7}{'mean':>8}")
for d, (lo, hi, mean) in summary.items():
    print(f"{d:<4}{lo:>7.1f}{hi:>7.1f}{mean:>8.2f}")

# %% Overall mean and a histogram of rounded values
import statistics
from collections import Counter
allv = [c for v in readings.values() for c in v]
print(round(statistics.mean(allv), 3), round(statistics.median(allv), 2))
hist = Counter(int(c // 5 * 5) for c in allv)
for bucket in sorted(hist):
    print(f"{bucket:>2}-{bucket + 4:<2} {'█' * hist[bucket]}")

# %% Moving average
def moving(xs, k):
    return [round(sum(xs[i:i + k]) / k, 2) for i in range(len(xs) - k + 1)]

moving(allv[:8], 3)
