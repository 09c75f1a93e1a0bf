# %% [markdown]
# Differential cells: lists, tuples, dicts, sets, slicing, comprehensions.

# %% list-append-extend-insert
xs = [1, 2]
xs.append(3); xs.extend([4, 5]); xs.insert(0, 0)
xs

# %% list-pop-remove
xs = [1, 2, 3, 2]
xs.pop(), xs.pop(0), xs.remove(2), xs

# %% list-index-count
xs = [3, 1, 3, 2]
xs.index(3), xs.index(3, 1), xs.count(3)

# %% list-index-missing
[1, 2].index(5)

# %% list-sort-key-reverse
xs = ["bb", "a", "ccc", "dd"]
xs.sort(key=len, reverse=True)
xs

# %% list-sort-stability
pairs = [(1, "b"), (0, "a"), (1, "a"), (0, "b")]
sorted(pairs, key=lambda p: p[0])

# %% list-reverse-copy-clear
xs = [1, 2, 3]
ys = xs.copy(); xs.reverse(); ys.clear()
xs, ys

# %% list-slicing
xs = list(range(10))
xs[2:5], xs[::3], xs[::-1][:3], xs[-3:], xs[5:2], xs[1:8:2]

# %% list-slice-assignment
xs = list(range(6))
xs[1:3] = ["a", "b", "c"]
del xs[-1]
xs

# %% list-extended-slice-assignment-error
xs = list(range(6))
xs[::2] = [1, 2]

# %% list-multiplication-aliasing
grid = [[0] * 2] * 2
grid[0][0] = 1
grid

# %% list-comprehension-nested
[(i, j) for i in range(3) for j in range(i)]

# %% list-comprehension-condition
[x * x for x in range(10) if x % 3 == 0]

# %% list-equality-and-ordering
[1, 2] == [1, 2], [1, 2] < [1, 3], [1, 2] < [1, 2, 0], [] < [0]

# %% list-in-and-not-in
3 in [1, 2, 3], "b" not in ["a"], [1] in [[1], [2]]

# %% list-repr-nested
[[1, [2, [3, []]]], (), {}]

# %% list-index-error
[1, 2, 3][3]

# %% list-unhashable
{[1]: 2}

# %% tuple-basics
t = (1, "a", 2.0)
t[1], len(t), t + (3,), t * 2, (1,), ()

# %% tuple-count-index
(1, 2, 1, 1).count(1), (1, 2, 3).index(3)

# %% tuple-immutable
t = (1, 2)
t[0] = 5

# %% tuple-unpacking-star
first, *mid, last = range(6)
first, mid, last

# %% tuple-unpacking-error
a, b = [1, 2, 3]

# %% dict-basics
d = {"a": 1, "b": 2}
d["c"] = 3
d, len(d), list(d), "a" in d

# %% dict-get-setdefault
d = {"a": 1}
d.get("a"), d.get("z"), d.get("z", 0), d.setdefault("b", []), d

# %% dict-pop-popitem
d = {"a": 1, "b": 2, "c": 3}
d.pop("a"), d.pop("z", None), d.popitem(), d

# %% dict-update-merge-operators
a = {"x": 1, "y": 2}
b = {"y": 3, "z": 4}
a | b, {**b, **a}, (a.update(z=0), a)[1]

# %% dict-views
d = {"a": 1, "b": 2}
d.keys(), d.values(), d.items(), list(d.items())[0]

# %% dict-keys-set-ops
d1 = {"a": 1, "b": 2}
d2 = {"b": 0, "c": 0}
sorted(d1.keys() & d2.keys()), sorted(d1.keys() | d2), sorted(d1.keys() - d2.keys())

# %% dict-comprehension
{k: len(k) for k in ("one", "three", "seven")}

# %% dict-fromkeys
dict.fromkeys("abc", 0), dict.fromkeys([1, 2])

# %% dict-insertion-order-after-delete
d = {"a": 1, "b": 2, "c": 3}
del d["a"]
d["a"] = 9
d

# %% dict-equality-order-independent
{"a": 1, "b": 2} == {"b": 2, "a": 1}

# %% dict-keyerror
{"a": 1}["b"]

# %% dict-changed-during-iteration
d = {"a": 1, "b": 2}
for k in d:
    d["c"] = 3

# %% dict-constructor-forms
dict(a=1, b=2), dict([("x", 1)]), dict(zip("ab", range(2)))

# %% dict-sorted-by-value
scores = {"ann": 3, "bob": 9, "cy": 5}
dict(sorted(scores.items(), key=lambda kv: kv[1], reverse=True))

# %% dict-repr-nested
{"a": {"b": {"c": [1, {"d": None}]}}}

# %% set-small-ints-order
{3, 1, 2}, set(range(5)), {10, 5, 1}

# %% set-ops-sorted
a, b = {1, 2, 3, 4}, {3, 4, 5}
sorted(a | b), sorted(a & b), sorted(a - b), sorted(a ^ b)

# %% set-methods
s = {1, 2}
s.add(3); s.discard(9); s.update([4, 5])
sorted(s), s.issubset(range(10)), s.isdisjoint({7}), {1, 2} <= s

# %% set-remove-missing
s = {1}
s.remove(2)

# %% set-of-strings-sorted
sorted({"pear", "apple", "fig"})

# %% frozenset-hashable
fs = frozenset([1, 2])
{fs: "ok"}[frozenset([2, 1])], len({frozenset(), frozenset()})

# %% set-comprehension
sorted({x % 4 for x in range(20)})

# %% empty-set-repr
set(), frozenset(), {1}.__class__.__name__

# %% len-of-things
len("héllo"), len(b"h\xc3\xa9"), len(range(0, 10, 3)), len({}), len([[]])

# %% range-properties
r = range(2, 20, 3)
r, list(r), r[2], r[-1], 11 in r, r.index(8), range(5)[1:3]

# %% range-empty-and-negative
list(range(5, 0, -2)), list(range(0)), range(0) == range(2, 2)

# %% enumerate-start
list(enumerate("abc", start=1))

# %% zip-strict
list(zip([1, 2], "ab", strict=True))

# %% zip-strict-error
list(zip([1, 2, 3], "ab", strict=True))

# %% zip-unequal-truncates
list(zip(range(5), "ab"))

# %% map-filter
list(map(str.upper, ["a", "b"])), list(filter(None, [0, 1, "", "x", None])), list(map(pow, [2, 3], [3, 2]))

# %% reversed-sorted
list(reversed([1, 2, 3])), sorted("bca"), sorted([3, 1, 2], reverse=True)

# %% any-all
any([]), all([]), any(x > 2 for x in [1, 3]), all(x > 0 for x in [1, 0])

# %% str-methods-split-join
"a,b,,c".split(","), "a b  c".split(), "a,b,c".split(",", 1), "a b c".rsplit(" ", 1), "-".join(["x", "y"])

# %% str-methods-strip-replace
"  x  ".strip(), "xxhixx".strip("x"), "aaa".replace("a", "b", 2), "hello".removeprefix("he"), "hello".removesuffix("lo")

# %% str-methods-find-count
"banana".find("an"), "banana".rfind("an"), "banana".count("a"), "banana".find("z"), "banana".startswith(("ba", "x"))

# %% str-methods-predicates
"abc".isalpha(), "123".isdigit(), "½".isnumeric(), "  ".isspace(), "Title Case".istitle(), "ab1".isalnum(), "x_1".isidentifier()

# %% str-methods-case
"Straße".lower(), "Straße".casefold(), "straße".upper(), "hELLO".swapcase(), "hello world".title()

# %% str-partition
"key=value=x".partition("="), "key=value=x".rpartition("="), "novalue".partition("=")

# %% str-splitlines
"a\nb\r\nc\rd".splitlines(), "a\nb\n".splitlines(keepends=True)

# %% str-encode-decode
"naïve".encode(), "naïve".encode("latin-1"), b"na\xc3\xafve".decode()

# %% str-indexing-slicing
s = "python"
s[0], s[-1], s[1:4], s[::-1], s[::2]

# %% str-multiplication-concat
"ab" * 3, "a" + "b", "-" * 0

# %% str-ord-chr
ord("A"), chr(9731), ord("€"), [chr(c) for c in range(97, 100)]

# %% str-comparison
"apple" < "banana", "Z" < "a", "a" < "ä", "10" < "9"

# %% str-translate-maketrans
"hello".translate(str.maketrans("el", "ip")), "abc".translate({ord("a"): None})

# %% str-immutable
s = "abc"
s[0] = "z"

# %% str-concat-int-error
"a" + 1

# %% bytes-methods
b"Hello".lower(), b"a,b".split(b","), b"abc".hex(), bytes.fromhex("41 42"), b"x" * 3

# %% bytearray-mutation
ba = bytearray(b"abc")
ba[0] = 65
ba.append(100)
ba, bytes(ba)

# %% memoryview-slicing
mv = memoryview(b"abcdef")
mv[1:3].tobytes(), mv[0], len(mv)

# %% copy-shallow-deep
import copy
a = [[1, 2], [3]]
s, d = copy.copy(a), copy.deepcopy(a)
a[0].append(9)
s, d

# %% sorted-with-none-error
sorted([1, None, 3])

# %% nested-comprehension-matrix
[[row[i] for row in [[1, 2, 3], [4, 5, 6]]] for i in range(3)]

# %% deep-nesting-repr
x = []
for _ in range(100):
    x = [x]
s = repr(x)
len(s), s[:5]

# %% deep-nesting-repr-recursion-error
x = []
for _ in range(100000):
    x = [x]
repr(x)

# %% deep-nesting-dict-repr
d = {}
cur = d
for i in range(50):
    cur["k"] = {}
    cur = cur["k"]
len(repr(d))

# %% self-referencing-list
a = [1]
a.append(a)
a

# %% self-referencing-dict
d = {"name": "d"}
d["self"] = d
d
