# %% [markdown]
# Differential cells: assorted standard-library modules.

# %% sys-stdout-write
import sys
sys.stdout.write("written\n")

# %% sys-stdout-write-semicolon
import sys
sys.stdout.write("quiet\n");

# %% sys-stderr-write
import sys
n = sys.stderr.write("to stderr\n")
n

# %% sys-stdout-writelines
import sys
sys.stdout.writelines(["a\n", "b\n"])

# %% sys-stdout-flush
import sys
print("x", end="")
sys.stdout.flush()
print("y")

# %% print-to-stringio
import io
buf = io.StringIO()
print("into buffer", 42, file=buf)
buf.getvalue()

# %% stringio-readlines
import io
f = io.StringIO("l1\nl2\nl3")
f.readline(), f.readlines(), f.tell()

# %% bytesio
import io
b = io.BytesIO()
b.write(b"abc")
b.seek(0)
b.read(2), b.getvalue()

# %% sys-version-info-major
import sys
sys.version_info[:2] >= (3, 8), sys.version_info.major

# %% sys-maxsize-float-info
import sys
sys.maxsize, sys.float_info.max, sys.float_info.epsilon, sys.int_info.bits_per_digit

# %% sys-getrecursionlimit
import sys
sys.getrecursionlimit() >= 1000

# %% sys-argv-type
import sys
type(sys.argv).__name__

# %% os-path-join-split
import os.path
os.path.join("a", "b", "c.txt"), os.path.splitext("x/y.tar.gz"), os.path.basename("/p/q.py"), os.path.dirname("/p/q.py")

# %% os-path-normpath
import os.path
os.path.normpath("a/./b/../c//d"), os.path.isabs("/x"), os.path.isabs("x")

# %% posixpath-relpath
import posixpath
posixpath.relpath("/a/b/c", "/a"), posixpath.commonpath(["/a/b/c", "/a/b/d"])

# %% pathlib-pure-path
from pathlib import PurePosixPath
p = PurePosixPath("/data/raw/file.tar.gz")
p.name, p.suffix, p.suffixes, p.stem, p.parent, p.parts, str(p.with_suffix(".zip"))

# %% pathlib-pure-join-relative
from pathlib import PurePosixPath
PurePosixPath("a") / "b" / "c.txt", PurePosixPath("/a/b/c").relative_to("/a"), PurePosixPath("x/y").match("*/y")

# %% collections-counter
from collections import Counter
c = Counter("hello world")
c.most_common(3), c["l"], c["z"]

# %% collections-counter-update-subtract
from collections import Counter
c = Counter(a=3, b=1)
c.update({"a": 1, "c": 2}); c.subtract({"b": 2})
sorted(c.items()), +c

# %% collections-defaultdict
from collections import defaultdict
d = defaultdict(int)
for ch in "abca":
    d[ch] += 1
d, dict(d)

# %% collections-defaultdict-repr-factory
from collections import defaultdict
defaultdict(list), defaultdict(lambda: 0).default_factory is not None

# %% collections-ordereddict
from collections import OrderedDict
od = OrderedDict(a=1, b=2)
od.move_to_end("a")
od, od.popitem(last=False)

# %% collections-deque
from collections import deque
d = deque([1, 2, 3], maxlen=4)
d.appendleft(0); d.append(4); d.rotate(1)
d, d[0], d.maxlen

# %% collections-chainmap
from collections import ChainMap
cm = ChainMap({"a": 1}, {"a": 2, "b": 3})
cm["a"], cm["b"], dict(cm), cm.new_child({"c": 4})["c"]

# %% collections-userdict
from collections import UserDict
class Lower(UserDict):
    def __setitem__(self, k, v):
        super().__setitem__(k.lower(), v)
d = Lower()
d["KEY"] = 1
d, d.data

# %% itertools-count-islice
from itertools import count, islice
list(islice(count(10, 5), 4))

# %% itertools-cycle-repeat
from itertools import cycle, repeat, islice
list(islice(cycle("ab"), 5)), list(repeat(7, 3))

# %% itertools-accumulate-initial
from itertools import accumulate
import operator
list(accumulate([1, 2, 3, 4], operator.mul)), list(accumulate([1, 2], initial=100))

# %% itertools-chain-from-iterable
from itertools import chain
list(chain.from_iterable([[1, 2], [3], []]))

# %% itertools-groupby
from itertools import groupby
[(k, list(g)) for k, g in groupby("aabbbc")]

# %% itertools-product-repeat
from itertools import product
list(product([0, 1], repeat=2))

# %% itertools-permutations-combinations
from itertools import permutations, combinations
list(permutations("abc", 2)), list(combinations(range(4), 3))

# %% itertools-tee-zip-longest
from itertools import tee, zip_longest
a, b = tee([1, 2, 3])
list(a), list(b), list(zip_longest([1, 2], ["x"], fillvalue=None))

# %% itertools-batched-or-absent
import itertools
hasattr(itertools, "batched")

# %% itertools-pairwise-starmap
from itertools import pairwise, starmap
list(pairwise("abcd")), list(starmap(max, [(1, 5), (7, 2)]))

# %% itertools-dropwhile-takewhile-filterfalse
from itertools import dropwhile, takewhile, filterfalse
list(dropwhile(lambda x: x < 3, [1, 2, 3, 1])), list(takewhile(str.isdigit, "12a3")), list(filterfalse(None, [0, 1, 0, 2]))

# %% functools-reduce
from functools import reduce
reduce(lambda a, b: a * b, [1, 2, 3, 4]), reduce(lambda a, b: a + b, [], 0)

# %% functools-reduce-empty-error
from functools import reduce
reduce(lambda a, b: a + b, [])

# %% functools-partial
from functools import partial
p = partial(pow, 2)
p(10), p.func.__name__, p.args

# %% functools-lru-cache-info
from functools import lru_cache
@lru_cache(maxsize=32)
def sq(n):
    return n * n
[sq(i % 3) for i in range(6)]
sq.cache_info()

# %% functools-cache
from functools import cache
calls = []
@cache
def f(x):
    calls.append(x)
    return x + 1
f(1), f(1), f(2), calls

# %% functools-wraps
from functools import wraps
def deco(fn):
    @wraps(fn)
    def inner(*a, **k):
        return fn(*a, **k)
    return inner
@deco
def hello():
    "says hi"
hello.__name__, hello.__doc__, hello.__wrapped__.__name__

# %% functools-singledispatch
from functools import singledispatch
@singledispatch
def kind(x):
    return "other"
@kind.register(int)
def _(x):
    return "int"
@kind.register(str)
def _(x):
    return "str"
kind(1), kind("a"), kind(1.5), kind(True)

# %% functools-cmp-to-key
from functools import cmp_to_key
sorted([3, 1, 2], key=cmp_to_key(lambda a, b: b - a))

# %% operator-itemgetter-attrgetter
from operator import itemgetter, attrgetter, methodcaller
itemgetter(1, 0)(("a", "b")), attrgetter("real")(3 + 4j), methodcaller("upper")("x")

# %% operator-functions
import operator
operator.add(1, 2), operator.neg(3), operator.contains([1], 1), operator.getitem("abc", 1), operator.truth([])

# %% textwrap-fill
import textwrap
textwrap.fill("the quick brown fox jumps over the lazy dog", width=15)

# %% textwrap-wrap
import textwrap
textwrap.wrap("aaaa bbbb cccc dddd", 9)

# %% textwrap-shorten
import textwrap
textwrap.shorten("Hello world, this is a long sentence", width=20)

# %% textwrap-dedent-indent
import textwrap
textwrap.dedent("    a\n      b\n    c"), textwrap.indent("x\ny", "  ")

# %% string-constants
import string
string.ascii_letters, string.digits, string.hexdigits, string.whitespace

# %% string-capwords-template
import string
string.capwords("hello   big world"), string.Template("$x and ${y}z").substitute(x=1, y=2)

# %% string-formatter
import string
string.Formatter().format("{0}-{name}", 1, name="n")

# %% statistics-median-low-high
import statistics
statistics.median_low([1, 3, 5, 7]), statistics.median_high([1, 3, 5, 7]), statistics.median_grouped([1, 2, 2, 3])

# %% heapq-push-pop
import heapq
h = []
for x in [5, 1, 4, 2]:
    heapq.heappush(h, x)
[heapq.heappop(h) for _ in range(4)]

# %% heapq-nlargest-nsmallest
import heapq
heapq.nlargest(2, [5, 1, 8, 3]), heapq.nsmallest(2, [5, 1, 8, 3]), heapq.nlargest(1, ["aa", "b"], key=len)

# %% bisect-functions
import bisect
xs = [1, 3, 3, 5]
bisect.bisect_left(xs, 3), bisect.bisect_right(xs, 3), bisect.bisect(xs, 4)

# %% bisect-insort
import bisect
xs = [1, 4, 9]
bisect.insort(xs, 5)
xs

# %% random-seeded
import random
random.seed(42)
random.random(), random.randint(1, 100), random.choice("abcde")

# %% random-instance-seeded
import random
r = random.Random(7)
r.sample(range(20), 5), r.uniform(1, 2)

# %% random-shuffle-seeded
import random
xs = list(range(10))
random.Random(3).shuffle(xs)
xs

# %% random-choices-weights
import random
random.Random(0).choices("abc", weights=[10, 1, 1], k=10)

# %% uuid-fixed
import uuid
uuid.UUID("12345678123456781234567812345678"), uuid.uuid5(uuid.NAMESPACE_DNS, "python.org")

# %% hashlib-sha256
import hashlib
hashlib.sha256(b"abc").hexdigest()

# %% hashlib-md5
import hashlib
hashlib.md5(b"").hexdigest()

# %% base64-roundtrip
import base64
base64.b64encode(b"hello?"), base64.b64decode(b"aGVsbG8/"), base64.urlsafe_b64encode(b"\xff\xfe")

# %% binascii-hexlify
import binascii
binascii.hexlify(b"\x01\xab"), binascii.unhexlify("01ab")

# %% zlib-crc32
import zlib
zlib.crc32(b"hello world")

# %% struct-pack
import struct
struct.pack(">IH", 1, 2), struct.unpack("<h", b"\xff\xff"), struct.calcsize("iq")

# %% array-module
import array
a = array.array("i", [1, 2, 3])
a.append(4)
a, a.tolist(), a.itemsize

# %% copy-deepcopy
import copy
a = {"x": [1, [2]]}
b = copy.deepcopy(a)
b["x"][1].append(3)
a, b

# %% pprint-width
import pprint
pprint.pformat({"key": list(range(12)), "other": "value"}, width=30)

# %% reprlib-repr
import reprlib
reprlib.repr(list(range(50))), reprlib.repr("a" * 50)

# %% html-escape
import html
html.escape("<a href='x'>&</a>"), html.unescape("&lt;p&gt; &amp; &eacute; &#39;")

# %% csv-reader-stringio
import csv, io
list(csv.reader(io.StringIO('a,b\n1,"x,y"\n2,"q""r"\n')))

# %% csv-dictwriter
import csv, io
buf = io.StringIO()
w = csv.DictWriter(buf, fieldnames=["n", "v"], lineterminator="\n")
w.writeheader(); w.writerow({"n": "a", "v": 1})
buf.getvalue()

# %% csv-sniffer
import csv
csv.Sniffer().sniff("a;b;c\n1;2;3\n").delimiter

# %% configparser-read-string
import configparser
c = configparser.ConfigParser()
c.read_string("[s]\nk = v\nn = 3\n")
c["s"]["k"], c.getint("s", "n"), c.sections()

# %% shlex-split
import shlex
shlex.split('cmd --name "a b" \'c d\' e\\ f'), shlex.quote("it's")

# %% fnmatch-glob-patterns
import fnmatch
fnmatch.fnmatch("data.csv", "*.csv"), fnmatch.filter(["a.py", "b.txt", "c.py"], "*.py")

# %% difflib-ratio
import difflib
round(difflib.SequenceMatcher(None, "abcd", "abed").ratio(), 3), difflib.get_close_matches("appel", ["apple", "ape", "peach"])

# %% unicodedata-name-normalize
import unicodedata
unicodedata.name("é"), unicodedata.normalize("NFD", "é") == "e\u0301", unicodedata.category("A")

# %% locale-independent-str-methods
"ǅ".lower(), "ǅ".upper(), "ﬁ".upper(), len("ﬁ".upper())

# %% contextlib-suppress
from contextlib import suppress
with suppress(KeyError):
    {}["x"]
"after"

# %% contextlib-contextmanager
from contextlib import contextmanager
@contextmanager
def cm():
    print("before")
    yield "v"
    print("after")
with cm() as v:
    print("inside", v)

# %% contextlib-redirect-stdout
import contextlib, io
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    print("hidden")
buf.getvalue()

# %% typing-get-type-hints
from typing import get_type_hints, Optional
def f(a: int, b: Optional[str] = None) -> list[int]:
    return []
get_type_hints(f)

# %% typing-runtime-no-check
def f(x: int) -> int:
    return x
f("not an int")

# %% typing-generics-repr
from typing import Optional, Union, List, Dict
Optional[int], Union[int, str], List[int], Dict[str, list], list[int], int | None

# %% inspect-signature
import inspect
def f(a, b=2, *args, c, **kw):
    pass
str(inspect.signature(f))

# %% inspect-getsource-absent-or-present
import inspect
def f():
    return 1
try:
    r = inspect.getsource(f).strip()
except (OSError, TypeError) as e:
    r = type(e).__name__
r

# %% weakref-ref
import weakref
class O: pass
o = O()
r = weakref.ref(o)
alive = r() is o
del o
alive, r() is None

# %% gc-collect-returns-int
import gc
isinstance(gc.collect(), int)

# %% abc-register
from abc import ABC
class Sized(ABC): pass
Sized.register(list)
isinstance([], Sized), issubclass(tuple, Sized)

# %% numbers-fraction-decimal-mix-error
from fractions import Fraction
from decimal import Decimal
Fraction(1, 2) + Decimal("0.5")

# %% enum-in-dict-key-order
from enum import Enum
class C(Enum):
    A = 1
    B = 2
{C.B: "b", C.A: "a"}

# %% builtins-dir-of-module-sorted
import math
[n for n in dir(math) if n.startswith("is")]

# %% builtins-help-type-name
type(help).__name__ if "help" in dir(__builtins__) else "no help"

# %% builtins-eval-exec
ns = {}
exec("y = 2 * 21", ns)
eval("y + 1", ns), ns["y"]

# %% builtins-compile
code = compile("a + b", "<expr>", "eval")
eval(code, {"a": 1, "b": 2}), code.co_names

# %% builtins-globals-locals
x_global = 1
"x_global" in globals(), type(locals()).__name__

# %% builtins-id-hash-stable
hash(1), hash(1.0) == hash(1), hash((1, 2)) == hash((1, 2)), hash(-1)

# %% builtins-iter-sentinel
it = iter([1, 2, 0, 3].pop, 2)
list(it)

# %% builtins-vars-object
class O:
    def __init__(self):
        self.a = 1
vars(O())

# %% builtins-open-no-file
open("definitely-not-here.txt")
