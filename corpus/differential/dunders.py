# %% [markdown]
# Differential cells: classes, dunder methods, inheritance, descriptors.

# %% class-repr-default-has-address
class P:
    pass
r = repr(P())
r.startswith("<__main__.P object at 0x")

# %% class-repr-custom
class P:
    def __repr__(self):
        return "P()"
P(), [P(), P()]

# %% class-str-vs-repr
class P:
    def __repr__(self):
        return "repr-P"
    def __str__(self):
        return "str-P"
print(P()); print([P()]); f"{P()} {P()!r}"

# %% class-eq-default-identity
class P:
    pass
a = P()
a == a, a == P(), a != P()

# %% class-eq-custom-hash-none
class P:
    def __eq__(self, o):
        return True
P.__hash__ is None, P() == 1

# %% class-unhashable-error
class P:
    def __eq__(self, o):
        return True
{P()}

# %% dunder-add-radd
class N:
    def __init__(self, v): self.v = v
    def __add__(self, o): return N(self.v + (o.v if isinstance(o, N) else o))
    def __radd__(self, o): return N(o + self.v)
    def __repr__(self): return f"N({self.v})"
N(1) + N(2), N(1) + 5, 5 + N(1), sum([N(1), N(2)])

# %% dunder-iadd
class Acc:
    def __init__(self): self.items = []
    def __iadd__(self, x):
        self.items.append(x)
        return self
a = Acc()
a += 1
a += 2
a.items

# %% dunder-sub-mul-truediv-floordiv-mod-pow
class V:
    def __init__(self, v): self.v = v
    def __sub__(self, o): return ("sub", self.v, o)
    def __mul__(self, o): return ("mul", self.v, o)
    def __truediv__(self, o): return ("div", self.v, o)
    def __floordiv__(self, o): return ("floordiv", self.v, o)
    def __mod__(self, o): return ("mod", self.v, o)
    def __pow__(self, o): return ("pow", self.v, o)
v = V(1)
v - 2, v * 3, v / 4, v // 5, v % 6, v ** 7

# %% dunder-rsub-rmul
class V:
    def __rsub__(self, o): return f"{o} - V"
    def __rmul__(self, o): return f"{o} * V"
10 - V(), 3 * V()

# %% dunder-neg-pos-abs-invert
class V:
    def __neg__(self): return "neg"
    def __pos__(self): return "pos"
    def __abs__(self): return "abs"
    def __invert__(self): return "inv"
-V(), +V(), abs(V()), ~V()

# %% dunder-matmul
class M:
    def __matmul__(self, o): return "matmul"
M() @ M()

# %% dunder-lt-sorting
class C:
    def __init__(self, k): self.k = k
    def __lt__(self, o): return self.k < o.k
    def __repr__(self): return f"C({self.k})"
sorted([C(3), C(1), C(2)]), min(C(5), C(4)), C(1) > C(0)

# %% dunder-comparison-missing
class C:
    pass
C() < C()

# %% dunder-total-ordering
from functools import total_ordering
@total_ordering
class C:
    def __init__(self, k): self.k = k
    def __eq__(self, o): return self.k == o.k
    def __lt__(self, o): return self.k < o.k
C(1) <= C(2), C(3) >= C(2), C(2) > C(2)

# %% dunder-len-bool
class B:
    def __len__(self): return 0
class T:
    def __bool__(self): return True
    def __len__(self): return 0
bool(B()), bool(T()), "yes" if B() else "no"

# %% dunder-len-negative-error
class B:
    def __len__(self): return -1
len(B())

# %% dunder-getitem-sequence
class Sq:
    def __getitem__(self, i):
        if i >= 5:
            raise IndexError(i)
        return i * i
list(Sq()), Sq()[3], 9 in Sq()

# %% dunder-getitem-slice
class S:
    def __getitem__(self, k): return k
S()[1:5:2], S()[::], S()[1, 2], S()[..., 0]

# %% dunder-setitem-delitem
class Store:
    def __init__(self): self.d = {}
    def __setitem__(self, k, v): self.d[k] = v * 2
    def __delitem__(self, k): del self.d[k]
s = Store()
s["a"] = 1; s["b"] = 2
del s["a"]
s.d

# %% dunder-contains
class Evens:
    def __contains__(self, x): return x % 2 == 0
4 in Evens(), 5 in Evens(), 5 not in Evens()

# %% dunder-iter-next
class Count:
    def __init__(self, n): self.i, self.n = 0, n
    def __iter__(self): return self
    def __next__(self):
        if self.i >= self.n:
            raise StopIteration
        self.i += 1
        return self.i
list(Count(4)), sum(Count(3))

# %% dunder-reversed
class R:
    def __reversed__(self): return iter("cba")
list(reversed(R()))

# %% dunder-call
class Adder:
    def __init__(self, n): self.n = n
    def __call__(self, x): return x + self.n
add3 = Adder(3)
add3(4), callable(add3), list(map(add3, [1, 2]))

# %% dunder-enter-exit
class CM:
    def __enter__(self):
        print("enter")
        return "value"
    def __exit__(self, t, v, tb):
        print("exit", t.__name__ if t else None)
        return True
with CM() as v:
    print(v)
    raise ValueError
print("done")

# %% dunder-getattr-fallback
class Dyn:
    x = 1
    def __getattr__(self, name): return f"dyn-{name}"
Dyn().x, Dyn().anything

# %% dunder-getattribute
class Loud:
    def __init__(self): self.a = 1
    def __getattribute__(self, name):
        return ("got", name, object.__getattribute__(self, name))
Loud().a

# %% dunder-setattr
class Log:
    def __setattr__(self, name, value):
        print("set", name, value)
        super().__setattr__(name, value)
o = Log()
o.x = 5
o.x

# %% dunder-delattr
class D:
    def __delattr__(self, name): print("del", name)
o = D()
del o.anything

# %% dunder-format
class F:
    def __format__(self, spec): return f"F<{spec}>"
f"{F():>10}", format(F(), "x"), "{:abc}".format(F())

# %% dunder-hash-eq-in-set
class K:
    def __init__(self, v): self.v = v
    def __eq__(self, o): return self.v == o.v
    def __hash__(self): return hash(self.v)
len({K(1), K(1), K(2)}), K(1) in {K(1)}

# %% dunder-index
class I:
    def __index__(self): return 2
[10, 20, 30][I()], bin(I()), "abc"[I()], range(10)[I()]

# %% dunder-int-float
class N:
    def __int__(self): return 7
    def __float__(self): return 7.5
int(N()), float(N())

# %% dunder-round-trunc-floor
import math
class R:
    def __round__(self, n=None): return ("round", n)
    def __trunc__(self): return 1
    def __floor__(self): return 2
    def __ceil__(self): return 3
round(R()), round(R(), 2), math.trunc(R()), math.floor(R()), math.ceil(R())

# %% dunder-bool-from-len-in-if
class Box:
    def __init__(self, items): self.items = items
    def __len__(self): return len(self.items)
[("full" if Box(x) else "empty") for x in ([], [1])]

# %% dunder-class-getitem
class G:
    def __class_getitem__(cls, item): return f"G[{item.__name__}]"
G[int]

# %% dunder-init-subclass
class Plugin:
    registry = []
    def __init_subclass__(cls, name=None, **kw):
        super().__init_subclass__(**kw)
        Plugin.registry.append(name or cls.__name__)
class A(Plugin): pass
class B(Plugin, name="bee"): pass
Plugin.registry

# %% dunder-new
class Single:
    _inst = None
    def __new__(cls):
        if cls._inst is None:
            cls._inst = super().__new__(cls)
        return cls._inst
Single() is Single()

# %% dunder-slots
class S:
    __slots__ = ("a",)
s = S()
s.a = 1
s.b = 2

# %% dunder-dict-and-vars
class P:
    def __init__(self): self.x, self.y = 1, 2
vars(P()), P().__dict__

# %% dunder-del-called
class D:
    def __del__(self): print("collected")
d = D()
del d
print("after del")

# %% dunder-missing-dict-subclass
class DD(dict):
    def __missing__(self, k): return k * 2
d = DD(a=1)
d["a"], d["zz"], "zz" in d

# %% dunder-name-qualname-module
class Outer:
    class Inner:
        def m(self): pass
Outer.Inner.__name__, Outer.Inner.__qualname__, Outer.Inner.m.__qualname__, Outer.__module__

# %% dunder-doc
class P:
    """Docstring here."""
    def m(self):
        "Method doc."
P.__doc__, P.m.__doc__

# %% inheritance-super-chain
class A:
    def hi(self): return "A"
class B(A):
    def hi(self): return "B" + super().hi()
class C(B):
    def hi(self): return "C" + super().hi()
C().hi()

# %% inheritance-diamond-mro
class A: pass
class B(A): pass
class C(A): pass
class D(B, C): pass
[k.__name__ for k in D.__mro__]

# %% inheritance-override-init
class Base:
    def __init__(self, x): self.x = x
class Child(Base):
    def __init__(self, x, y):
        super().__init__(x)
        self.y = y
c = Child(1, 2)
c.x, c.y, isinstance(c, Base), type(c).__bases__[0].__name__

# %% inheritance-builtin-list
class Stack(list):
    def push(self, x): self.append(x)
    def peek(self): return self[-1]
s = Stack([1])
s.push(2)
s, s.peek(), len(s), type(s).__name__

# %% inheritance-builtin-str
class Shout(str):
    def __new__(cls, s): return super().__new__(cls, s.upper())
Shout("hi"), Shout("hi") + "!", isinstance(Shout("x"), str)

# %% inheritance-builtin-int
class Cents(int):
    def __repr__(self): return f"{int(self)}c"
Cents(5), Cents(5) + 1, [Cents(2)]

# %% inheritance-exception-subclass
class MyErr(ValueError):
    pass
try:
    raise MyErr("custom")
except ValueError as e:
    r = (type(e).__name__, str(e), isinstance(e, Exception))
r

# %% metaclass-basic
class Meta(type):
    def __new__(mcs, name, bases, ns):
        ns["tag"] = name.lower()
        return super().__new__(mcs, name, bases, ns)
class Thing(metaclass=Meta):
    pass
Thing.tag, type(Thing).__name__

# %% abc-abstract-error
from abc import ABC, abstractmethod
class Base(ABC):
    @abstractmethod
    def run(self): ...
Base()

# %% property-getter-setter
class T:
    def __init__(self): self._c = 0
    @property
    def c(self): return self._c
    @c.setter
    def c(self, v):
        if v < -273:
            raise ValueError("too cold")
        self._c = v
t = T()
t.c = 21
t.c

# %% property-read-only-error
class T:
    @property
    def x(self): return 1
T().x = 2

# %% classmethod-staticmethod
class D:
    count = 0
    @classmethod
    def make(cls): cls.count += 1; return cls()
    @staticmethod
    def helper(x): return x * 2
D.make(); D.make()
D.count, D.helper(4), D().helper(1)

# %% descriptor-get-set
class Positive:
    def __set_name__(self, owner, name): self.name = "_" + name
    def __get__(self, obj, objtype=None): return getattr(obj, self.name, None) if obj else self
    def __set__(self, obj, value):
        if value <= 0:
            raise ValueError(f"{self.name[1:]} must be positive")
        setattr(obj, self.name, value)
class Order:
    qty = Positive()
o = Order()
o.qty = 3
o.qty

# %% descriptor-error
class Positive:
    def __set_name__(self, owner, name): self.name = "_" + name
    def __get__(self, obj, objtype=None): return getattr(obj, self.name)
    def __set__(self, obj, value):
        if value <= 0:
            raise ValueError(f"{self.name[1:]} must be positive")
        setattr(obj, self.name, value)
class Order:
    qty = Positive()
Order().qty = -1

# %% getattr-setattr-hasattr-builtins
class O: pass
o = O()
setattr(o, "x", 1)
getattr(o, "x"), getattr(o, "y", "default"), hasattr(o, "y"), delattr(o, "x"), hasattr(o, "x")

# %% attribute-error-message
class O: pass
O().missing

# %% type-and-isinstance-tuple
type(1), type("a"), isinstance(1, (str, int)), type(None).__name__, type(type)

# %% dynamic-type-creation
Point = type("Point", (), {"x": 0, "show": lambda self: f"Point({self.x})"})
Point().show(), Point.__name__

# %% object-identity-is
a = [1]
b = a
c = [1]
a is b, a is c, a == c, None is None
