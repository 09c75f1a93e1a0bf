# %% [markdown]
# Walking a directory tree: os, os.path and pathlib.

# %% Where am I (relative view only)
import os
from pathlib import Path
Path.cwd().name, os.path.basename(os.getcwd()), Path(".").resolve() == Path.cwd()

# %% os.listdir and os.scandir
print(sorted(os.listdir("project")))
entries = sorted(os.scandir("project"), key=lambda e: e.name)
[(e.name, e.is_dir(), e.is_file()) for e in entries]

# %% os.walk
for root, dirs, files in os.walk("project"):
    dirs.sort()
    print(root, sorted(files))

# %% pathlib iterdir, glob and rglob
p = Path("project")
print(sorted(c.name for c in p.iterdir()))
print(sorted(str(c) for c in p.glob("*/*.md")))
print(sorted(str(c) for c in p.rglob("*.py")))

# %% stat: sizes, never times
{str(f.relative_to(p)): f.stat().st_size for f in sorted(p.rglob("*")) if f.is_file()}

# %% os.path helpers
f = "project/src/pkg/util.py"
os.path.exists(f), os.path.isfile(f), os.path.isdir("project/src"), os.path.getsize(f), os.path.splitext(f), os.path.relpath(f, "project/src")

# %% Absolute paths, shown relative to the notebook folder
a = os.path.abspath("project/docs/../README.txt")
os.path.isabs(a), os.path.relpath(a, os.getcwd()), os.path.normpath("project/docs/../README.txt")

# %% Path arithmetic
q = Path("project") / "src" / "pkg" / "table.csv"
q.suffix, q.stem, q.parent.name, q.exists(), q.with_suffix(".json").exists(), q.read_text().splitlines()

# %% Hidden files and the empty folder
sorted(os.listdir("project/empty_dir")), [c.name for c in Path("project/empty_dir").iterdir()]

# %% Total size by extension
from collections import Counter
sizes = Counter()
for f in p.rglob("*"):
    if f.is_file():
        sizes[f.suffix or "(none)"] += f.stat().st_size
dict(sorted(sizes.items()))

# %% Listing a missing folder
os.listdir("nope")

# %% Reading a folder as a file
open("project/docs")
