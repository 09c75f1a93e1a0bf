# %% Reproducible randomness with a seed
import random
random.seed(2024)
[random.randint(1, 6) for _ in range(10)]

# %% Choices with weights
rng = random.Random(7)
rng.choices(["red", "green", "blue"], weights=[5, 3, 1], k=12)

# %% Shuffle and sample
deck = [f"{r}{s}" for s in "SHDC" for r in "A23456789TJQK"]
rng = random.Random(1)
rng.shuffle(deck)
deck[:5], rng.sample(range(100), 5)

# %% A Monte Carlo estimate of pi
rng = random.Random(42)
n = 20000
inside = sum(1 for _ in range(n) if rng.random() ** 2 + rng.random() ** 2 <= 1)
round(4 * inside / n, 4)

# %% A random walk
rng = random.Random(3)
pos, path = 0, []
for _ in range(20):
    pos += rng.choice((-1, 1))
    path.append(pos)
print(path)
print("max", max(path), "min", min(path))

# %% Gaussian samples summarised
import statistics
rng = random.Random(11)
xs = [rng.gauss(10, 2) for _ in range(1000)]
round(statistics.mean(xs), 3), round(statistics.stdev(xs), 3)

# %% Same seed, same sequence
a = random.Random(99).random()
b = random.Random(99).random()
a == b, round(a, 6)

# %% Sample larger than the population
random.Random(0).sample([1, 2, 3], 5)
