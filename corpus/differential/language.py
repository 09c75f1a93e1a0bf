# %% [markdown]
# Differential cells: language constructs.

# %% walrus-in-comprehension
data = [1, 5, 12, 7]
[y for x in data if (y := x * 2) > 5]

# %% walrus-in-while
items = [3, 2, 1]
out = []
while (n := len(items)) > 1:
    out.append(items.pop())
out, n

# %% match-literal-and-capture
def f(cmd):
    match cmd.split():
        case ["go", direction]:
            return f"going {direction}"
        case ["quit"]:
            return "bye"
        case _:
            return "unknown"
f("go north"), f("quit"), f("dance now")

# %% match-class-pattern
from dataclasses import dataclass
@dataclass
class Pt:
    x: int
    y: int
def where(p):
    match p:
        case Pt(x=0, y=0):
            return "origin"
        case Pt(x=0):
            return "y-axis"
        case Pt(x=x, y=y) if x == y:
            return f"diagonal {x}"
        case _:
            return "elsewhere"
[where(p) for p in (Pt(0, 0), Pt(0, 5), Pt(3, 3), Pt(1, 2))]

# %% match-mapping-and-or
def kind(ev):
    match ev:
        case {"type": "click" | "tap", "pos": (x, y)}:
            return f"press at {x},{y}"
        case {"type": str(t)}:
            return f"other {t}"
    return "invalid"
kind({"type": "tap", "pos": (1, 2)}), kind({"type": "key"}), kind([])

# %% match-sequence-star
def head(xs):
    match xs:
        case [first, *rest]:
            return first, len(rest)
        case []:
            return None
head([1, 2, 3]), head([])

# %% lambda-defaults-closure
fs = [lambda x, i=i: x + i for i in range(3)]
[f(10) for f in fs]

# %% late-binding-closure
fs = [lambda: i for i in range(3)]
[f() for f in fs]

# %% closure-nonlocal
def counter():
    n = 0
    def inc():
        nonlocal n
        n += 1
        return n
    return inc
c = counter()
c(), c(), c()

# %% global-statement
total = 0
def add(x):
    global total
    total += x
add(3); add(4)
total

# %% star-args-kwargs
def f(*args, **kwargs):
    return args, kwargs
f(1, 2, a=3), f(*[1, 2], **{"b": 4})

# %% keyword-only-and-positional-only
def f(a, /, b, *, c):
    return a, b, c
f(1, 2, c=3), f(1, b=2, c=3)

# %% positional-only-error
def f(a, /):
    return a
f(a=1)

# %% default-mutable-argument
def append(x, acc=[]):
    acc.append(x)
    return acc
append(1), append(2)

# %% unpacking-nested
(a, b), [c, *d] = (1, 2), [3, 4, 5]
a, b, c, d

# %% unpacking-in-literals
[*range(3), *"ab"], {**{"a": 1}, "b": 2}, {*[1, 1, 2]}

# %% chained-assignment-and-swap
a = b = [0]
a.append(1)
x, y = 1, 2
x, y = y, x
b, (x, y)

# %% augmented-assignment-list-vs-tuple
l = [1]
l2 = l
l += [2]
t = (1,)
t2 = t
t += (2,)
l2, t2

# %% conditional-expression
["even" if n % 2 == 0 else "odd" for n in range(4)]

# %% comprehension-scope
x = "outer"
[x for x in range(3)]
x

# %% generator-expression-sum
sum(x * x for x in range(10))

# %% generator-send-and-close
def echo():
    received = []
    try:
        while True:
            received.append((yield len(received)))
    except GeneratorExit:
        print("closed with", received)
g = echo()
next(g); g.send("a"); g.send("b")
g.close()

# %% yield-from-delegation
def inner():
    yield 1
    yield 2
    return "ret"
def outer():
    r = yield from inner()
    yield r
list(outer())

# %% decorator-with-arguments
def repeat(n):
    def deco(fn):
        def wrapper(*a):
            return [fn(*a) for _ in range(n)]
        return wrapper
    return deco
@repeat(3)
def hi(name):
    return f"hi {name}"
hi("bo")

# %% decorator-stacking-order
def a(fn):
    return lambda: "a(" + fn() + ")"
def b(fn):
    return lambda: "b(" + fn() + ")"
@a
@b
def f():
    return "f"
f()

# %% class-decorator
def add_hello(cls):
    cls.hello = lambda self: f"hello from {type(self).__name__}"
    return cls
@add_hello
class K:
    pass
K().hello()

# %% for-else-while-else
def find(xs, t):
    for x in xs:
        if x == t:
            break
    else:
        return "not found"
    return "found"
find([1, 2], 2), find([1, 2], 5)

# %% try-else-finally-order
log = []
try:
    log.append("try")
except Exception:
    log.append("except")
else:
    log.append("else")
finally:
    log.append("finally")
log

# %% with-multiple-managers
from contextlib import contextmanager
@contextmanager
def cm(n):
    print("enter", n)
    yield n
    print("exit", n)
with cm(1) as a, cm(2) as b:
    print("body", a + b)

# %% del-statement
x = 1
del x
"x" in dir()

# %% del-then-use
y = 1
del y
y

# %% assert-passes
assert 1 + 1 == 2, "math"
"ok"

# %% pass-ellipsis
def f(): ...
def g(): pass
f(), g(), ..., type(...).__name__

# %% semicolon-hides-value
1 + 1;

# %% trailing-none-not-shown
None

# %% trailing-print-returns-none
print("only printed")

# %% value-is-last-expression-only
1
2

# %% expression-after-assignment
x = 5
x

# %% trailing-comment-after-value
3 * 3  # a comment

# %% semicolon-then-comment
3 * 3;  # hidden

# %% multiple-statements-one-line
a = 1; b = 2; a + b

# %% string-literal-concatenation
"abc" "def", ("multi"
              "line")

# %% raw-and-bytes-and-triple-strings
r"\n", b"\n", """a
b""", len("\N{BULLET}")

# %% fstring-nested-quotes
d = {"k": "v"}
f"{d['k']} {f'{1 + 1}'}"

# %% numeric-literals
0b1010, 0o17, 0xff, 1_000, 1e3, 2j, 0.5e-2

# %% integer-interning-not-relied
a = 256
b = 256
a == b

# %% boolean-short-circuit
log = []
def t(x):
    log.append(x)
    return x
t(0) and t(1), t(2) or t(3), log

# %% truthiness-of-values
[bool(v) for v in (0, 0.0, "", [], {}, set(), None, "0", [0], 0j)]

# %% is-vs-eq-none
x = None
x is None, x == None, [] == [], [] is []

# %% chained-comparison-identity
a = [1]
a is a is a, 1 < 2 > 1, (1 < 2) == True

# %% integer-caching-range
[i for i in range(-3, 3)]

# %% ternary-nested
def sign(n):
    return "neg" if n < 0 else "zero" if n == 0 else "pos"
[sign(n) for n in (-2, 0, 5)]

# %% recursion-fib
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
[fib(i) for i in range(15)]

# %% recursion-depth-moderate
def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)
depth(500)

# %% recursion-mutual
def is_even(n):
    return True if n == 0 else is_odd(n - 1)
def is_odd(n):
    return False if n == 0 else is_even(n - 1)
is_even(10), is_odd(7)

# %% nested-functions-three-levels
def a():
    def b():
        def c():
            return "c"
        return "b" + c()
    return "a" + b()
a()

# %% lambda-sorting-key
sorted(["banana", "Apple", "cherry"], key=lambda s: s.lower())

# %% type-hints-ignored
x: int = "a string"
x

# %% annotations-dict
y: list[int]
__annotations__ if "__annotations__" in dir() else {}

# %% slice-object
s = slice(1, 10, 2)
list(range(20))[s], s.indices(5), s

# %% ellipsis-in-slice
class A:
    def __getitem__(self, k): return k
A()[..., 1:2]

# %% global-name-shadowing-builtin
list = [1, 2]
r = list
del list
r, list("ab")

# %% unicode-identifiers
café = 3
π = 3.14159
café * 2, round(π, 2)

# %% class-body-scope
class C:
    x = 5
    y = [x * 2]
    z = [i for i in range(3)]
C.y, C.z

# %% print-in-loop-many-lines
for i in range(5):
    print(i, i * i)

# %% long-output
print("\n".join(str(i) for i in range(200)))

# %% big-repr-value
list(range(300))

# %% star-expression-in-index
d = {(1, 2): "pair"}
t = (1, 2)
d[t], d[1, 2]

# %% exec-defines-name
exec("zz = 40")
zz + 2

# %% top-level-await-simple
import asyncio
await asyncio.sleep(0)
"awaited"

# %% deeply-nested-parens
((((((((((((((((((((1))))))))))))))))))))

# %% many-nested-lists-literal
[[[[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]]
