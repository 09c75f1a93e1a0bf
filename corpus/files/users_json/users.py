# %% [markdown]
# User directory from JSON files in `data/`.

# %% Read users with pathlib
import json
from pathlib import Path

users = json.loads(Path("data/users.json").read_text(encoding="utf-8"))
len(users), users[1]["name"]

# %% Groups
with open("data/groups.json") as f:
    groups = json.load(f)
{name: g["permissions"] for name, g in groups.items()}

# %% Active users per group
from collections import defaultdict
members = defaultdict(list)
for u in users:
    if u["active"]:
        for g in u["groups"] or ["(none)"]:
            members[g].append(u["name"].split()[0])
dict(sorted(members.items()))

# %% Permissions of each user
def perms(user):
    return sorted({p for g in user["groups"] for p in groups[g]["permissions"]})

for u in users:
    print(f"{u['id']} {u['name']:<14} {', '.join(perms(u)) or '-'}")

# %% Which JSON files are there
sorted(p.name for p in Path("data").glob("*.json"))

# %% One of them is broken
for p in sorted(Path("data").glob("*.json")):
    try:
        json.loads(p.read_text())
        print(p.name, "ok")
    except json.JSONDecodeError as e:
        print(p.name, "->", e)

# %% Export active users, then read the export back
active = [{"id": u["id"], "name": u["name"]} for u in users if u["active"]]
Path("data/active.json").write_text(json.dumps(active, ensure_ascii=False, indent=1), encoding="utf-8")
json.loads(Path("data/active.json").read_text(encoding="utf-8"))[-1]

# %% Sizes in bytes
{p.name: p.stat().st_size for p in sorted(Path("data").iterdir())}

# %% Signups by year
from datetime import date
from collections import Counter
Counter(date.fromisoformat(u["signup"]).year for u in users)
