# Probe corpus: constructs Monty may run differently from CPython.
#
# Each cell probes one construct; its title is the construct's name as the
# router knows it (pysrc.Features and pysrc.Uses). backyard-ls runs every
# cell in a fresh Monty session once per worker version and compares what it
# prints with what CPython printed (expected.json, made by
# scripts/gen-probe-expected.py). Constructs whose output differs, or that
# Monty rejects, are routed to the container in auto mode.

# %% match
match [1, 2]:
    case [a, b]:
        print("matched", a + b)

# %% yield
def gen():
    yield 1
    yield 2
print(list(gen()))

# %% del
x = 1
del x
print("x" in globals() if False else "deleted")

# %% class-inheritance
class Base:
    def hello(self):
        return "base"
class Child(Base):
    pass
print(Child().hello())

# %% decorator-in-class
class K:
    @staticmethod
    def f():
        return "static"
    @property
    def p(self):
        return "prop"
print(K.f(), K().p)

# %% async-with
import asyncio
class CM:
    async def __aenter__(self):
        return "in"
    async def __aexit__(self, *a):
        return False
async def main():
    async with CM() as v:
        print(v)
asyncio.run(main())

# %% async-for
import asyncio
class It:
    def __init__(self):
        self.n = 0
    def __aiter__(self):
        return self
    async def __anext__(self):
        self.n += 1
        if self.n > 2:
            raise StopAsyncIteration
        return self.n
async def main():
    async for v in It():
        print(v)
asyncio.run(main())

# %% star-except
try:
    raise ExceptionGroup("g", [ValueError("v")])
except* ValueError:
    print("caught group")

# %% type-alias
type Pair = tuple[int, int]
print("alias ok")

# %% global
counter = 0
def bump():
    global counter
    counter += 1
bump()
print(counter)

# %% nonlocal
def outer():
    n = 0
    def inner():
        nonlocal n
        n += 1
    inner()
    return n
print(outer())

# %% percent-format
print("%s has %d items (%.1f%%)" % ("cart", 3, 12.5))

# %% complex-literal
print((1 + 2j) * 1j)

# %% star-import
from math import *
print(floor(2.5))

# %% generator-expression
g = (x * x for x in range(3))
print(type(g).__name__, next(g), list(g))

# %% round-ndigits
print(round(2.675, 2), round(0.125, 2), round(1.005, 2), round(-2.675, 2), round(0.5, 0), round(2.5, 0), round(-0.001, 2))
print(round(1234.5678, -2), round(1250.0, -2), round(1350.0, -2), round(-4.0, -1), round(15.0, -1), round(25.0, -1), round(1e20 + 5e4, -5), round(-5.0, -400))
print(round(1250, -2), round(1350, -2), round(7, 1), round(True, 1), round(2.5, None), round(float("inf"), 2), f"{round(2.675, 2)}")

# %% set
print({5, 3, 1, 10, 100}, set("abc") == {"a", "b", "c"}, sorted({3, 1, 2}))
for v in {40, 7, 300}:
    print(v)

# %% dunder:__bool__
class Empty:
    def __bool__(self):
        return False
print(bool(Empty()), "yes" if Empty() else "no")

# %% dunder:__len__
class Three:
    def __len__(self):
        return 3
print(len(Three()), bool(Three()))

# %% dunder:__lt__
class V:
    def __init__(self, x):
        self.x = x
    def __lt__(self, o):
        return self.x < o.x
print(V(1) < V(2), [v.x for v in sorted([V(2), V(1)])])

# %% dunder:__le__
class V:
    def __init__(self, x):
        self.x = x
    def __le__(self, o):
        return self.x <= o.x
print(V(1) <= V(2))

# %% dunder:__gt__
class V:
    def __init__(self, x):
        self.x = x
    def __gt__(self, o):
        return self.x > o.x
print(V(1) > V(2), max([V(1), V(3), V(2)], key=lambda v: v.x).x)

# %% dunder:__ge__
class V:
    def __init__(self, x):
        self.x = x
    def __ge__(self, o):
        return self.x >= o.x
print(V(1) >= V(2))

# %% dunder:__eq__
class V:
    def __init__(self, x):
        self.x = x
    def __eq__(self, o):
        return isinstance(o, V) and self.x == o.x
print(V(1) == V(1), V(1) != V(2), V(1) in [V(1)])

# %% dunder:__hash__
class V:
    def __init__(self, x):
        self.x = x
    def __eq__(self, o):
        return self.x == o.x
    def __hash__(self):
        return hash(self.x)
print(len({V(1), V(1), V(2)}))

# %% dunder:__add__
class V:
    def __init__(self, x):
        self.x = x
    def __add__(self, o):
        return V(self.x + o.x)
print((V(1) + V(2)).x)

# %% dunder:__radd__
class V:
    def __init__(self, x):
        self.x = x
    def __radd__(self, o):
        return o + self.x
print(sum([V(1), V(2)]), 5 + V(1))

# %% dunder:__iadd__
class Acc:
    def __init__(self):
        self.items = []
    def __iadd__(self, o):
        self.items.append(o)
        return self
a = Acc()
a += 3
print(a.items)

# %% dunder:__sub__
class V:
    def __init__(self, x):
        self.x = x
    def __sub__(self, o):
        return V(self.x - o.x)
print((V(5) - V(2)).x)

# %% dunder:__mul__
class V:
    def __init__(self, x):
        self.x = x
    def __mul__(self, k):
        return V(self.x * k)
print((V(2) * 3).x)

# %% dunder:__truediv__
class V:
    def __init__(self, x):
        self.x = x
    def __truediv__(self, k):
        return V(self.x / k)
print((V(3) / 2).x)

# %% dunder:__neg__
class V:
    def __init__(self, x):
        self.x = x
    def __neg__(self):
        return V(-self.x)
print((-V(3)).x)

# %% dunder:__abs__
class V:
    def __abs__(self):
        return 42
print(abs(V()))

# %% dunder:__matmul__
class M:
    def __matmul__(self, o):
        return "matmul"
print(M() @ M())

# %% dunder:__contains__
class Box:
    def __contains__(self, item):
        return item == 1
print(1 in Box(), 2 in Box())

# %% dunder:__iter__
class Box:
    def __iter__(self):
        return iter([1, 2, 3])
print(list(Box()), [x for x in Box()])

# %% dunder:__next__
class Count:
    def __init__(self):
        self.n = 0
    def __iter__(self):
        return self
    def __next__(self):
        self.n += 1
        if self.n > 3:
            raise StopIteration
        return self.n
print(list(Count()))

# %% dunder:__getitem__
class Sq:
    def __getitem__(self, i):
        return i * i
print(Sq()[4])

# %% dunder:__setitem__
class Store:
    def __init__(self):
        self.d = {}
    def __setitem__(self, k, v):
        self.d[k] = v
s = Store()
s["a"] = 1
print(s.d)

# %% dunder:__call__
class F:
    def __call__(self, x):
        return x + 1
print(F()(1))

# %% dunder:__str__
class S:
    def __str__(self):
        return "as str"
print(S(), str(S()), f"{S()}")

# %% dunder:__repr__
class R:
    def __repr__(self):
        return "R()"
print([R()], repr(R()))

# %% dunder:__format__
class Fm:
    def __format__(self, spec):
        return "fmt:" + spec
print(f"{Fm():x>5}", format(Fm(), "abc"))

# %% dunder:__enter__
class CM:
    def __enter__(self):
        print("enter")
        return self
    def __exit__(self, *a):
        print("exit")
        return False
with CM():
    print("body")

# %% dunder:__getattr__
class Dyn:
    def __getattr__(self, name):
        return "dyn:" + name
print(Dyn().anything)

# %% dunder:__setattr__
class Log:
    def __setattr__(self, name, value):
        print("set", name)
        object.__setattr__(self, name, value)
l = Log()
l.x = 1
print(l.x)

# %% dunder:__int__
class N:
    def __int__(self):
        return 7
    def __float__(self):
        return 7.5
print(int(N()), float(N()))

# %% dunder:__index__
class I:
    def __index__(self):
        return 2
print([10, 20, 30][I()], hex(I()))

# %% dunder:__post_init__
from dataclasses import dataclass
@dataclass
class P:
    x: int
    def __post_init__(self):
        self.y = self.x * 2
print(P(2).y)

# %% dunder:__init_subclass__
class Registry:
    names = []
    def __init_subclass__(cls):
        Registry.names.append(cls.__name__)
print(Registry.names)

# %% dunder:__class_getitem__
class G:
    def __class_getitem__(cls, item):
        return "generic"
print(G[int])

# %% dunder:__del__
class D:
    def __del__(self):
        pass
print("del ok")

# %% dunder:__reversed__
class Rv:
    def __reversed__(self):
        return iter([3, 2, 1])
print(list(reversed(Rv())))

# %% dunder:__round__
class Rd:
    def __round__(self, n=None):
        return 99
print(round(Rd()))

# %% dunder:__getattribute__
class Loud:
    def __init__(self):
        self.a = 1
    def __getattribute__(self, name):
        return ("got", name)
print(Loud().a)

# %% dunder:__new__
class One:
    made = 0
    def __new__(cls):
        One.made += 1
        return object.__new__(cls)
One()
print(One.made)

# %% dunder:__get__
class Ten:
    def __get__(self, obj, objtype=None):
        return 10
class H:
    x = Ten()
print(H().x)

# %% dunder:__set__
class Pos:
    def __get__(self, obj, objtype=None):
        return obj.__dict__.get("v", 0)
    def __set__(self, obj, value):
        if value < 0:
            raise ValueError("negative")
        obj.__dict__["v"] = value
class H:
    v = Pos()
h = H()
try:
    h.v = -1
    print("accepted")
except ValueError as e:
    print("refused")

# %% dunder:__set_name__
class Named:
    def __set_name__(self, owner, name):
        self.name = name
class H:
    field = Named()
print(H.field.name)

# %% dunder:__slots__
class S:
    __slots__ = ("a",)
s = S()
try:
    s.b = 2
    print("set b")
except AttributeError:
    print("AttributeError")

# %% asyncio-concurrency
import asyncio
order = []
async def w(name, d):
    await asyncio.sleep(d)
    order.append(name)
    return name
async def main():
    return await asyncio.gather(w("a", 0.03), w("b", 0.01), w("c", 0.02))
print(asyncio.run(main()), order)

# %% except-as
for f in (lambda: 1 // 0, lambda: 1.0 / 0, lambda: [1].index(5), lambda: (1, 2)[5], lambda: int("x")):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)

# %% type-as-value
print(type(type), type.__name__)

# %% dict-bool-key
print({1: "a", True: "b"}, {0: "x", False: "y"})

# %% re-ascii
import re
print(re.findall(r"\w+", "naïve café", re.ASCII))

# %% re-template
import re
print(re.sub(r"(a)(b)?", r"[\1|\2]", "ab a"))
try:
    print(repr(re.sub(r"(a)", r"\2", "a")))
except re.error as e:
    print("error", e)

# %% hasattr
import itertools, math
print(hasattr(itertools, "batched"), hasattr(math, "cbrt"), hasattr(math, "sumprod"))

# %% stdio-write
import sys
n = sys.stdout.write("out\n")
sys.stdout.writelines(["a\n", "b\n"])
sys.stdout.flush()
print(n, sys.stdout.write(""))

# %% object-repr
class P:
    pass
def f():
    pass
print(repr(P()).startswith("<__main__.P object at 0x"), repr(P), repr(f).startswith("<function f at 0x"))

# %% is-literal
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    compile("x = 1000\nx is 1000", "<probe>", "exec")
print([str(w.message) for w in caught])
small = 5
print(small is 5)

# %% annotations
class C:
    x: int
    y: "str" = "a"
print(C.__annotations__)

# %% surrogate-escape
s = '\ud83d\ude00'
print(len(s), ascii(s), ascii('\ud800'))
