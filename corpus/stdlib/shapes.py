# %% Shapes with an abstract base class
from abc import ABC, abstractmethod
import math

class Shape(ABC):
    @abstractmethod
    def area(self): ...

    @abstractmethod
    def perimeter(self): ...

    def describe(self):
        return f"{type(self).__name__} area={self.area():.2f} perimeter={self.perimeter():.2f}"

class Circle(Shape):
    def __init__(self, r):
        self.r = r
    def area(self):
        return math.pi * self.r ** 2
    def perimeter(self):
        return 2 * math.pi * self.r

class Rect(Shape):
    def __init__(self, w, h):
        self.w, self.h = w, h
    def area(self):
        return self.w * self.h
    def perimeter(self):
        return 2 * (self.w + self.h)

class Square(Rect):
    def __init__(self, side):
        super().__init__(side, side)

shapes = [Circle(1), Rect(2, 3.5), Square(4)]
for s in shapes:
    print(s.describe())

# %% The ABC cannot be instantiated
Shape()

# %% Sort by area
[type(s).__name__ for s in sorted(shapes, key=lambda s: s.area())]

# %% Total area
round(sum(s.area() for s in shapes), 3)

# %% issubclass
issubclass(Square, Rect), issubclass(Square, Shape), isinstance(Circle(2), Rect)

# %% A property with validation
class Triangle(Shape):
    def __init__(self, a, b, c):
        self.sides = (a, b, c)

    @property
    def sides(self):
        return self._sides

    @sides.setter
    def sides(self, value):
        a, b, c = sorted(value)
        if a + b <= c:
            raise ValueError(f"not a triangle: {value}")
        self._sides = (a, b, c)

    def perimeter(self):
        return sum(self.sides)

    def area(self):
        s = self.perimeter() / 2
        a, b, c = self.sides
        return math.sqrt(s * (s - a) * (s - b) * (s - c))

Triangle(3, 4, 5).describe()

# %% Invalid triangle
Triangle(1, 2, 10)

# %% Class attribute counting instances
class Counted(Circle):
    count = 0
    def __init__(self, r):
        super().__init__(r)
        Counted.count += 1

[Counted(i) for i in range(3)]
Counted.count
