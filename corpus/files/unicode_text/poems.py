# %% [markdown]
# Non-ASCII text files: UTF-8 in several scripts, and one legacy Latin-1 file.

# %% The files
from pathlib import Path
files = sorted(Path("texts").glob("*.txt"))
[f.name for f in files]

# %% Read a French poem
hugo = Path("texts/hugo_fr.txt").read_text(encoding="utf-8")
print(hugo)

# %% Characters, bytes and lines
stats = {}
for f in files:
    if f.name.startswith("latin1"):
        continue
    text = f.read_text(encoding="utf-8")
    stats[f.name] = (len(text), len(f.read_bytes()), len(text.splitlines()))
stats

# %% Line by line with open()
with open("texts/basho_ja.txt", encoding="utf-8") as fh:
    for n, line in enumerate(fh, 1):
        print(n, line.rstrip("\n"), len(line.rstrip("\n")))

# %% Latin-1 read as UTF-8 fails
Path("texts/latin1_legacy.txt").read_text(encoding="utf-8")

# %% With the right encoding
Path("texts/latin1_legacy.txt").read_text(encoding="latin-1").strip()

# %% Or with replacement characters
Path("texts/latin1_legacy.txt").read_text(encoding="utf-8", errors="replace").strip()

# %% Word counts across languages
import re
from collections import Counter
words = Counter()
for f in files:
    if not f.name.startswith("latin1"):
        words.update(w.lower() for w in re.findall(r"\w+", f.read_text(encoding="utf-8")))
[w for w, n in words.most_common() if n > 1]

# %% Normalise and save as ASCII-safe JSON
import json, unicodedata
def strip_accents(s):
    return "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")
first_lines = {f.stem: f.read_text(encoding="utf-8").splitlines()[0] for f in files if not f.name.startswith("latin1")}
Path("first_lines.json").write_text(json.dumps(first_lines, indent=1), encoding="utf-8")
print(Path("first_lines.json").read_text(encoding="utf-8"))
strip_accents(first_lines["hugo_fr"])

# %% Binary mode sees the bytes
with open("texts/mixed.txt", "rb") as fh:
    head = fh.read(16)
head, head.decode("utf-8", errors="ignore")
