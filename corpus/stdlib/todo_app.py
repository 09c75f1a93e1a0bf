# %% A tiny to-do manager
from dataclasses import dataclass, field, asdict
from datetime import date
import json

@dataclass
class Task:
    title: str
    due: date
    done: bool = False
    tags: list[str] = field(default_factory=list)

tasks = [
    Task("file taxes", date(2024, 4, 15), tags=["admin"]),
    Task("buy milk", date(2024, 4, 2), tags=["home"]),
    Task("book dentist", date(2024, 4, 9), tags=["health", "admin"]),
    Task("fix bike", date(2024, 5, 1)),
]
len(tasks)

# %% Mark one done
next(t for t in tasks if t.title == "buy milk").done = True
[t.title for t in tasks if not t.done]

# %% Due within a week of a given day
today = date(2024, 4, 8)
soon = [t for t in tasks if not t.done and 0 <= (t.due - today).days <= 7]
[(t.title, (t.due - today).days) for t in soon]

# %% By tag
from collections import defaultdict
by_tag = defaultdict(list)
for t in tasks:
    for tag in t.tags or ["untagged"]:
        by_tag[tag].append(t.title)
dict(sorted(by_tag.items()))

# %% Export as JSON (dates as ISO strings)
def encode(o):
    if isinstance(o, date):
        return o.isoformat()
    raise TypeError(f"cannot encode {type(o).__name__}")

payload = json.dumps([asdict(t) for t in tasks], default=encode, indent=1)
print(payload[:160])

# %% Import it back
loaded = [Task(**{**d, "due": date.fromisoformat(d["due"])}) for d in json.loads(payload)]
loaded == tasks

# %% Without a default encoder
json.dumps(asdict(tasks[0]))

# %% Agenda
for t in sorted(tasks, key=lambda t: (t.done, t.due)):
    box = "x" if t.done else " "
    print(f"[{box}] {t.due:%a %d %b}  {t.title}")
