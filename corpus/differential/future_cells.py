# %% [markdown]
# A __future__ import holds for the cells after it.

# %% future import
from __future__ import annotations

# %% annotations after it
def area(w: float, h: float) -> float:
    return w * h
area.__annotations__

# %% class annotations after it
class Point:
    x: int
    y: int = 0
Point.__annotations__
