# Cell values as IPython's displayhook pretty-prints them (IPython.lib.pretty):
# past 79 columns a container breaks one item per line, sets are sorted,
# dicts keep their order. Every cell here also runs on Monty.

# %% short list
[1, 2, 3]

# %% long list of numbers
list(range(30))

# %% squares past the width
[i * i for i in range(25)]

# %% records
rows = [
    {"id": 1, "name": "Ada Lovelace", "city": "London", "score": 91.5},
    {"id": 2, "name": "Grace Hopper", "city": "New York", "score": 88.0},
    {"id": 3, "name": "Alan Turing", "city": "Wilmslow", "score": 95.25},
]
rows

# %% one record fits
rows[0]

# %% nested config
config = {
    "model": {"name": "resnet50", "layers": [64, 128, 256, 512], "dropout": 0.25},
    "train": {"epochs": 30, "batch_size": 128, "lr": 0.001, "schedule": "cosine"},
    "paths": ("data/train.csv", "data/valid.csv", "runs/latest"),
}
config

# %% dict keeps insertion order
{"zebra": 1, "apple": 2, "mango": 3}

# %% long dict of counts
{word: len(word) for word in "the quick brown fox jumps over the lazy dog again and again".split()}

# %% set sorted
{"cherry", "apple", "banana"}

# %% frozenset sorted
frozenset({"delta", "alpha", "charlie", "bravo"})

# %% long set of numbers
set(range(100, 0, -4))

# %% empty containers
[], (), {}, set(), frozenset()

# %% one-tuple
(42,)

# %% tuple of pairs
tuple((c, ord(c)) for c in "abcdefghijklmnop")

# %% long string stays one line
"lorem ipsum dolor sit amet, " * 4

# %% string with newlines
"first line\nsecond line\n"

# %% list of long strings
["The quick brown fox jumps over the lazy dog", "Pack my box with five dozen liquor jugs", "How vexingly quick daft zebras jump"]

# %% matrix
[[r * 10 + c for c in range(8)] for r in range(6)]

# %% list that refers to itself
loop = [1, 2]
loop.append(loop)
loop

# %% dict that refers to itself
node = {"name": "root"}
node["self"] = node
node

# %% nested cycle past the width
ring = {"label": "a fairly long label for a ring node", "values": list(range(12))}
ring["next"] = [ring, ring]
ring

# %% floats
[0.1 * i for i in range(12)]

# %% mixed nesting
{"ids": list(range(15)), "tags": {"b", "a", "c"}, "pair": (1.5, None), "ok": True, "raw": b"bytes"}

# %% Counter
from collections import Counter, defaultdict, deque
Counter("mississippi")

# %% long Counter
Counter("the quick brown fox jumps over the lazy dog and keeps running far away")

# %% empty Counter
Counter()

# %% defaultdict
groups = defaultdict(list)
for w in ["apple", "avocado", "banana", "blueberry", "cherry"]:
    groups[w[0]].append(w)
groups

# %% deque
deque(range(5), maxlen=8)

# %% long deque
deque(range(40))

# %% dataclass records
from dataclasses import dataclass

@dataclass
class Point:
    x: float
    y: float
    label: str = ""

[Point(0.5, 1.5, "start"), Point(2.0, 3.25, "middle"), Point(4.0, 5.0, "end")]

# %% dataclass fits
Point(1, 2)

# %% _repr_pretty_
class Polygon:
    def __init__(self, name, points):
        self.name = name
        self.points = points

    def _repr_pretty_(self, p, cycle):
        if cycle:
            p.text("Polygon(...)")
            return
        with p.group(8, "Polygon(", ")"):
            p.text(repr(self.name))
            p.text(",")
            p.breakable()
            p.pretty(self.points)

Polygon("triangle", [(0, 0), (1, 0), (0, 1)])

# %% _repr_pretty_ past the width
Polygon("a shape with a long name", [(i, i * i) for i in range(10)])

# %% _repr_pretty_ in a list
[Polygon("a", [(0, 0)]), Polygon("b", [(1, 1)])]

# %% multi-line repr
class Table:
    def __repr__(self):
        return "+---+---+\n| a | b |\n+---+---+"

Table()

# %% multi-line repr in a list
[Table(), Table()]

# %% classes
[Point, Polygon, int, str]

# %% sequences past a thousand items
list(range(1005))

# %% sets of mixed types
{1, "a", 2.5}

# %% display of a long value
display(list(range(30)))

# %% pretty printing off
%pprint

# %% a long list as its repr
list(range(40))

# %% nested values as their repr
{"name": "a shape with a long name", "points": [(i, i * i) for i in range(8)], "tags": {"x"}}

# %% display as the repr
display([Point(1, 2)] * 2, list(range(30)))

# %% pretty printing on again
%pprint
list(range(30))

# %% functions by their signatures
def scale(values, factor=2.0, *, clip=None):
    return values

def area(width: float, height: float = 1.5) -> float:
    return width * height

def collect(first, /, *rest, sep: str = ", ", **options):
    return first

async def fetch(url, retries=3, timeout=(1, 0x10)):
    return url

def label(text="it's", mark=b"\x00", end=..., sign=-1):
    return text

scale

# %% functions in a container
{"area": area, "steps": [collect, fetch, label]}

# %% a function defined on several lines
def shape(
    points: list[tuple[int, int]],  # the corners
    closed: bool = True,
    name: "str | None" = None,
) -> Point:
    return Point(0, 0)

# %% shown in a later cell
display(shape)
shape

# %% a method by its class
class Meter:
    unit = "m"

    def read(self, scale=1, *, digits: int = 2) -> float:
        return 0.0

    async def poll(self, every=5):
        return None

Meter.read

# %% methods and lambdas in a list
square = lambda x: x * x
pair = lambda a, b=(1, 2), *rest, **kw: (a, b)
[Meter.poll, square, pair]

# %% a lambda as the value
lambda item, default=None: item
