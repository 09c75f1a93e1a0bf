# %% Plain classes run on Monty
import math
class Circle:
    def __init__(self, r):
        self.r = r
    def area(self):
        return math.pi * self.r ** 2
round_area = int(Circle(2).area() * 100)
round_area

# %% A hierarchy needs full CPython
class Shape:
    def describe(self):
        return f"{type(self).__name__} with area {self.area():.2f}"
class Square(Shape):
    def __init__(self, s):
        self.s = s
    def area(self):
        return self.s ** 2
Square(3).describe()

# %% Later cells keep running in the container, with earlier names
print(round_area, Square(2).area())

# %% Sorting by a key
shapes = [Square(3), Square(1), Square(2)]
[s.s for s in sorted(shapes, key=lambda s: s.area())]
