# %% [markdown]
# Scan the application logs under `logs/` (and its archive).

# %% Today's logs with glob
import glob
sorted(glob.glob("logs/*.log"))

# %% Every log, recursively, with pathlib
from pathlib import Path
[str(p) for p in sorted(Path("logs").rglob("*.log"))]

# %% Parse all lines
import re
LINE = re.compile(r"(?P<ts>\S+) (?P<level>[A-Z]+)\s+(?P<svc>\w+)\s+(?P<msg>.*)")
entries = []
for p in sorted(Path("logs").rglob("*.log")):
    with p.open(encoding="utf-8") as fh:
        for line in fh:
            m = LINE.match(line.rstrip("\n"))
            if m:
                entries.append({**m.groupdict(), "file": p.name})
len(entries)

# %% Levels per file
from collections import Counter
for name in sorted({e["file"] for e in entries}):
    c = Counter(e["level"] for e in entries if e["file"] == name)
    print(name, dict(sorted(c.items())))

# %% Errors
for e in entries:
    if e["level"] == "ERROR":
        print(e["ts"][:19], e["svc"], e["msg"])

# %% Request latency
lat = [int(m.group(1)) for e in entries if (m := re.search(r" (\d+)ms", e["msg"]))]
len(lat), max(lat), sorted(lat)[len(lat) // 2]

# %% Logins, with non-ASCII user names
logins = Counter()
for e in entries:
    if (m := re.match(r"user=(\S+) login (ok|failed)", e["msg"])):
        logins[m.groups()] += 1
sorted(logins.items())

# %% Write an error report and read it back
errors = [e for e in entries if e["level"] in ("ERROR", "WARN")]
with open("logs/errors.txt", "w", encoding="utf-8") as out:
    for e in errors:
        out.write(f"{e['ts']} {e['level']:<5} {e['svc']}: {e['msg']}\n")
with open("logs/errors.txt", encoding="utf-8") as fh:
    print(fh.read(), end="")

# %% The folder after the report
sorted(p.name for p in Path("logs").iterdir())

# %% fnmatch against os.listdir
import fnmatch, os
sorted(fnmatch.filter(os.listdir("logs"), "app-*.log"))
