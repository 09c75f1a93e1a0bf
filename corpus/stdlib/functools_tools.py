# %% Memoisation with lru_cache
from functools import lru_cache, partial, reduce, total_ordering, singledispatch, wraps, cached_property
import operator

@lru_cache(maxsize=None)
def ways(n, coins=(1, 5, 10, 25)):
    if n == 0:
        return 1
    if n < 0 or not coins:
        return 0
    return ways(n - coins[0], coins) + ways(n, coins[1:])

ways(100)

# %% Cache statistics
ways.cache_info().hits > 0, ways.cache_info().currsize

# %% partial
int_base2 = partial(int, base=2)
int_base2("101101"), int_base2.keywords

# %% reduce
reduce(operator.mul, range(1, 11)), reduce(lambda acc, w: acc + len(w), ["ab", "cde", "f"], 0)

# %% total_ordering
@total_ordering
class Version:
    def __init__(self, s):
        self.parts = tuple(int(p) for p in s.split("."))
    def __eq__(self, other):
        return self.parts == other.parts
    def __lt__(self, other):
        return self.parts < other.parts
    def __repr__(self):
        return "Version(%r)" % ".".join(map(str, self.parts))

vs = [Version("1.10.0"), Version("1.2.3"), Version("1.2.10")]
sorted(vs), Version("2.0") >= Version("1.99")

# %% singledispatch
@singledispatch
def describe(x):
    return f"object {x!r}"

@describe.register
def _(x: int):
    return f"int with {x.bit_length()} bits"

@describe.register
def _(x: list):
    return f"list of {len(x)}"

[describe(v) for v in (255, [1, 2], "s")]

# %% A decorator that keeps the name
def logged(fn):
    @wraps(fn)
    def inner(*args):
        print(f"calling {fn.__name__}{args}")
        return fn(*args)
    return inner

@logged
def area(w, h):
    """Area of a rectangle."""
    return w * h

area(3, 4), area.__name__, area.__doc__

# %% cached_property
class Report:
    def __init__(self, values):
        self.values = values
    @cached_property
    def total(self):
        print("computing")
        return sum(self.values)

r = Report([1, 2, 3])
r.total, r.total
