# %% A 2D vector with dunder methods
import math

class Vec:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Vec({self.x!r}, {self.y!r})"

    def __add__(self, other):
        return Vec(self.x + other.x, self.y + other.y)

    def __sub__(self, other):
        return Vec(self.x - other.x, self.y - other.y)

    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)

    __rmul__ = __mul__

    def __neg__(self):
        return Vec(-self.x, -self.y)

    def __abs__(self):
        return math.hypot(self.x, self.y)

    def __eq__(self, other):
        return isinstance(other, Vec) and (self.x, self.y) == (other.x, other.y)

    def __hash__(self):
        return hash((self.x, self.y))

    def __iter__(self):
        yield self.x
        yield self.y

    def __bool__(self):
        return bool(self.x or self.y)

    def __format__(self, spec):
        return f"<{format(self.x, spec)}, {format(self.y, spec)}>"

a, b = Vec(3, 4), Vec(1, -2)
a + b, a - b, 2 * a, -b

# %% Length
abs(a)

# %% Unpacking through __iter__
x, y = a
print(x, y, list(b))

# %% Format spec
f"{Vec(1/3, 2/3):.3f}"

# %% Truthiness
bool(Vec(0, 0)), bool(b)

# %% Hashable: usable in a dict
visits = {Vec(0, 0): 1, a: 2}
visits[Vec(3, 4)]

# %% Dot product and angle
def dot(u, v):
    return u.x * v.x + u.y * v.y

angle = math.degrees(math.acos(dot(a, b) / (abs(a) * abs(b))))
round(angle, 4)

# %% Slots: no new attributes
try:
    a.z = 1
except AttributeError as e:
    print(e)

# %% Adding a non-vector
a + 1
