# %% [markdown]
# Annotations read as values, without from __future__ import annotations.

# %% class annotations
class Point:
    x: int
    label: "str" = "p"
Point.__annotations__

# %% module annotations
total: float = 0.0
__annotations__
