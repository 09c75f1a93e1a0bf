# %% Nested data pretty printed
import pprint
data = {
    "users": [{"id": i, "name": n, "roles": ["admin", "dev"][: i % 2 + 1]} for i, n in enumerate(["ann", "bob", "cy"], 1)],
    "meta": {"version": (1, 4, 2), "generated": "2024-06-01", "counts": {"active": 2, "disabled": 1}},
}
pprint.pprint(data, width=60)

# %% pformat with depth limits
print(pprint.pformat(data, depth=2, width=50))

# %% Compact and sorted
pprint.pprint(list(range(40)), compact=True, width=40)
pprint.pprint({"b": 1, "a": 2, "c": {"z": 0, "y": 1}}, sort_dicts=True)

# %% reprlib shortens
import reprlib
reprlib.repr(list(range(100))), reprlib.repr("x" * 100), reprlib.repr({i: str(i) for i in range(20)})

# %% A recursive structure
loop = [1, 2]
loop.append(loop)
loop, pprint.isrecursive(loop), len(loop)

# %% Long strings wrap
pprint.pprint({"text": "lorem ipsum dolor sit amet " * 4}, width=40)

# %% The repr of a big value as Out
{"matrix": [[i * j for j in range(6)] for i in range(6)], "label": "table"}
