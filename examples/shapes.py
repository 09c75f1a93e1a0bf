# %% [markdown]
# # Shapes
# Classes, dataclasses and a little geometry.

# %%
import math
from dataclasses import dataclass


@dataclass
class Point:
    x: float
    y: float


class Polygon:
    def __init__(self, name, points):
        self.name = name
        self.points = points

    def perimeter(self):
        total = 0.0
        for i in range(len(self.points)):
            a = self.points[i]
            b = self.points[(i + 1) % len(self.points)]
            total += math.hypot(b.x - a.x, b.y - a.y)
        return total

    def area(self):
        # Shoelace formula
        s = 0.0
        for i in range(len(self.points)):
            a = self.points[i]
            b = self.points[(i + 1) % len(self.points)]
            s += a.x * b.y - b.x * a.y
        return abs(s) / 2

# %%
square = Polygon("square", [Point(0, 0), Point(2, 0), Point(2, 2), Point(0, 2)])
triangle = Polygon("triangle", [Point(0, 0), Point(4, 0), Point(0, 3)])
shapes = [square, triangle]
for shape in shapes:
    print(f"{shape.name}: perimeter={shape.perimeter():.2f} area={shape.area():.2f}")

# %%
Point(1.5, -2)

# %%
biggest = max(shapes, key=lambda s: s.area())
biggest.name
