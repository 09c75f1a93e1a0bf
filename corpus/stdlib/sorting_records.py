# %% People records
from operator import itemgetter, attrgetter
from collections import namedtuple

Person = namedtuple("Person", "name age city")
people = [
    Person("Zoë", 31, "Lyon"),
    Person("adam", 25, "Berlin"),
    Person("Bob", 31, "Austin"),
    Person("carla", 19, "Berlin"),
    Person("Émile", 25, "Lyon"),
]
people[0]

# %% Default sort is by the first field, case-sensitive
[p.name for p in sorted(people)]

# %% Case-insensitive
[p.name for p in sorted(people, key=lambda p: p.name.casefold())]

# %% By age then name, with itemgetter
[(p.age, p.name) for p in sorted(people, key=itemgetter(1, 0))]

# %% Stable multi-pass sort: city ascending, age descending
s = sorted(people, key=attrgetter("age"), reverse=True)
s = sorted(s, key=attrgetter("city"))
for p in s:
    print(f"{p.city:<7} {p.age:>3} {p.name}")

# %% In-place sort of a list of dicts
rows = [p._asdict() for p in people]
rows.sort(key=lambda r: (-r["age"], r["name"]))
[r["name"] for r in rows]

# %% Sorting mixed types fails
sorted([3, "a", 1])

# %% Min, max and ranks
youngest = min(people, key=attrgetter("age"))
oldest = max(people, key=attrgetter("age"))
ranks = {p.name: i for i, p in enumerate(sorted(people, key=attrgetter("age")), 1)}
youngest.name, oldest.name, ranks

# %% Reverse of a string sort key
sorted(["b10", "a2", "a10", "b1"], key=lambda s: (s[0], int(s[1:])))
