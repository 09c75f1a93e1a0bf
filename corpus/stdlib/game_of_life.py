# %% Conway's Game of Life on a set of live cells
from collections import Counter

def step(live):
    counts = Counter((x + dx, y + dy) for x, y in live
                     for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)
    return {c for c, n in counts.items() if n == 3 or (n == 2 and c in live)}

glider = {(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)}
sorted(step(glider))

# %% Render a board
def render(live, w=8, h=6):
    return "\n".join("".join("#" if (x, y) in live else "." for x in range(w)) for y in range(h))

print(render(glider))

# %% Four generations later the glider moved by (1, 1)
g = glider
for _ in range(4):
    g = step(g)
sorted(g) == sorted((x + 1, y + 1) for x, y in glider)

# %% A blinker oscillates
blinker = {(1, 0), (1, 1), (1, 2)}
print(render(step(blinker), 4, 3))
print()
print(render(step(step(blinker)), 4, 3))

# %% Population over time (R-pentomino)
r = {(1, 0), (2, 0), (0, 1), (1, 1), (1, 2)}
pops = []
for _ in range(30):
    pops.append(len(r))
    r = step(r)
pops

# %% Bounding box
xs, ys = zip(*r)
min(xs), max(xs), min(ys), max(ys)
