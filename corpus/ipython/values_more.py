# Cell values as IPython pretty-prints them, for what Monty does not have:
# subclasses, namedtuples, exceptions, functions, namespaces, %precision.

# %% namedtuple records
from collections import namedtuple, OrderedDict, UserList
Row = namedtuple("Row", "city country population")
[Row("Tokyo", "Japan", 37400068), Row("Delhi", "India", 28514000), Row("Shanghai", "China", 25582000)]

# %% dict subclass
class Record(dict):
    pass

Record(name="Ada", born=1815, field="mathematics", known_for="the first published algorithm")

# %% list subclass with its own repr
class Stack(list):
    def __repr__(self):
        return "Stack(" + list.__repr__(self) + ")"

Stack(range(30))

# %% set subclass
class Tags(set):
    pass

Tags({"b", "a"}), Tags()

# %% exceptions
[ValueError("bad value", 3), KeyError("missing"), RuntimeError()]

# %% exception subclass
class ParseError(Exception):
    pass

ParseError("unexpected token", "line 3, column 14, while reading the configuration file")

# %% functions
def scale(values, factor=2.0, *, clip=None):
    return values

scale, (lambda x: x)

# %% classes and nested classes
class Outer:
    class Inner:
        pass

Outer, Outer.Inner, ValueError, type

# %% SimpleNamespace
from types import SimpleNamespace, MappingProxyType
SimpleNamespace(host="localhost", port=8080, debug=True)

# %% long SimpleNamespace
SimpleNamespace(host="db.internal.example.com", port=5432, user="analytics", database="warehouse", timeout=30)

# %% mappingproxy
MappingProxyType({"a": 1, "b": 2})

# %% OrderedDict
OrderedDict([("first", 1), ("second", 2)]), OrderedDict()

# %% UserList
UserList([1, 2, 3])

# %% regular expressions
import re
[re.compile(r"\d+"), re.compile(r"^\s*#", re.MULTILINE | re.IGNORECASE), re.compile(rb"x")]

# %% enum members
import enum
class Color(enum.Enum):
    RED = 1
    GREEN = 2

[Color.RED, Color.GREEN], Color

# %% precision
%precision 3
[3.14159265, 2.71828182, (1.41421356, {"phi": 1.61803398})]

# %% precision past the width
[i / 7 for i in range(20)]

# %% precision off
%precision
[1 / 3]

# %% Decimal, Fraction and dates
from decimal import Decimal
from fractions import Fraction
import datetime
[Decimal("1.10"), Fraction(1, 3), datetime.date(2024, 2, 29), datetime.datetime(2024, 2, 29, 12, 30), datetime.timedelta(days=1, seconds=5)]

# %% _repr_pretty_ with a cycle
class Tree:
    def __init__(self, name):
        self.name = name
        self.children = []

    def _repr_pretty_(self, p, cycle):
        if cycle:
            p.text("Tree(...)")
            return
        with p.group(5, "Tree(", ")"):
            p.pretty(self.name)
            for c in self.children:
                p.text(",")
                p.breakable()
                p.pretty(c)

root = Tree("root")
root.children = [Tree("left"), Tree("right"), root]
root

# %% break_ and indent
class Report:
    def _repr_pretty_(self, p, cycle):
        p.text("Report:")
        with p.indent(2):
            p.break_()
            p.text("rows: 3")
            p.break_()
            p.pretty({"mean": 2.5, "max": 4})

Report()

# %% unsortable set
{(1, 2), "a", 3}

# %% bool and None singletons
[None, True, False, Ellipsis, NotImplemented]
