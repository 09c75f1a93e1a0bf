# %% [markdown]
# Differential cells: dataclasses, namedtuples, enums.

# %% dataclass-repr-eq
from dataclasses import dataclass
@dataclass
class P:
    x: int
    y: int = 0
P(1), P(1) == P(1, 0), P(1, 2) != P(2, 1)

# %% dataclass-order
from dataclasses import dataclass
@dataclass(order=True)
class V:
    major: int
    minor: int
sorted([V(1, 2), V(0, 9), V(1, 0)]), V(1, 0) < V(1, 1)

# %% dataclass-frozen-error
from dataclasses import dataclass
@dataclass(frozen=True)
class F:
    x: int
F(1).x = 2

# %% dataclass-frozen-hashable
from dataclasses import dataclass
@dataclass(frozen=True)
class F:
    x: int
len({F(1), F(1), F(2)})

# %% dataclass-default-factory
from dataclasses import dataclass, field
@dataclass
class Bag:
    items: list = field(default_factory=list)
a, b = Bag(), Bag()
a.items.append(1)
a, b

# %% dataclass-mutable-default-error
from dataclasses import dataclass
@dataclass
class Bad:
    items: list = []

# %% dataclass-field-options
from dataclasses import dataclass, field
@dataclass
class U:
    name: str
    password: str = field(repr=False, default="")
    tags: tuple = field(default=(), compare=False)
U("ann", "secret"), U("a", tags=(1,)) == U("a")

# %% dataclass-post-init
from dataclasses import dataclass, field
@dataclass
class R:
    w: float
    h: float
    area: float = field(init=False)
    def __post_init__(self):
        self.area = self.w * self.h
R(2, 3.5)

# %% dataclass-asdict-astuple
from dataclasses import dataclass, asdict, astuple
@dataclass
class In:
    a: int
@dataclass
class Out:
    inner: In
    xs: list
o = Out(In(1), [In(2)])
asdict(o), astuple(o)

# %% dataclass-replace
from dataclasses import dataclass, replace
@dataclass
class C:
    a: int
    b: str = "x"
replace(C(1), b="y")

# %% dataclass-fields
from dataclasses import dataclass, fields, MISSING
@dataclass
class C:
    a: int
    b: str = "x"
[(f.name, f.type.__name__, f.default is MISSING, f.default) for f in fields(C)][1]

# %% dataclass-inheritance
from dataclasses import dataclass
@dataclass
class Base:
    id: int
@dataclass
class Child(Base):
    name: str = "?"
Child(1), Child(2, "n")

# %% dataclass-kw-only
from dataclasses import dataclass
@dataclass(kw_only=True)
class K:
    a: int
    b: int = 2
K(a=1), K(b=3, a=0)

# %% dataclass-kw-only-positional-error
from dataclasses import dataclass
@dataclass(kw_only=True)
class K:
    a: int
K(1)

# %% dataclass-slots
from dataclasses import dataclass
@dataclass(slots=True)
class S:
    x: int
S(1), hasattr(S(1), "__dict__")

# %% dataclass-missing-argument-error
from dataclasses import dataclass
@dataclass
class P:
    x: int
    y: int
P(1)

# %% dataclass-is-dataclass
from dataclasses import dataclass, is_dataclass
@dataclass
class P:
    x: int
is_dataclass(P), is_dataclass(P(1)), is_dataclass(1)

# %% dataclass-nested-repr
from dataclasses import dataclass, field
@dataclass
class Node:
    val: int
    children: list = field(default_factory=list)
Node(1, [Node(2), Node(3, [Node(4)])])

# %% namedtuple-basic
from collections import namedtuple
P = namedtuple("P", "x y")
p = P(1, y=2)
p, p.x, p[1], p._asdict(), p._replace(x=9), P._fields

# %% namedtuple-defaults
from collections import namedtuple
P = namedtuple("P", ["x", "y", "z"], defaults=[0, 0])
P(1), P._field_defaults

# %% typing-namedtuple
from typing import NamedTuple
class Emp(NamedTuple):
    name: str
    dept: str = "eng"
Emp("ann"), Emp("bo", "ops")._asdict()

# %% enum-basic
from enum import Enum
class Color(Enum):
    RED = 1
    GREEN = 2
Color.RED, Color(2), Color["RED"], Color.RED.name, Color.RED.value, list(Color)

# %% enum-str-format
from enum import Enum
class Color(Enum):
    RED = 1
str(Color.RED), f"{Color.RED}", repr(Color.RED)

# %% enum-auto-and-unique
from enum import Enum, auto, unique
@unique
class S(Enum):
    A = auto()
    B = auto()
[(s.name, s.value) for s in S]

# %% enum-invalid-value
from enum import Enum
class Color(Enum):
    RED = 1
Color(5)

# %% intenum-strenum
from enum import IntEnum, StrEnum
class P(IntEnum):
    LOW = 1
    HIGH = 2
class Mode(StrEnum):
    READ = "r"
P.HIGH > P.LOW, P.LOW + 1, Mode.READ == "r", str(Mode.READ), f"{P.HIGH}"

# %% flag-combination
from enum import Flag, auto
class Perm(Flag):
    R = auto()
    W = auto()
    X = auto()
Perm.R | Perm.W, Perm.R in (Perm.R | Perm.X), (Perm.R | Perm.W).value, list(Perm.R | Perm.X)

# %% enum-members-with-methods
from enum import Enum
class Planet(Enum):
    MERCURY = (3.303e23, 2.4397e6)
    EARTH = (5.976e24, 6.37814e6)
    def __init__(self, mass, radius):
        self.mass, self.radius = mass, radius
    @property
    def gravity(self):
        return round(6.673e-11 * self.mass / self.radius ** 2, 2)
Planet.EARTH.gravity, Planet.MERCURY.value
