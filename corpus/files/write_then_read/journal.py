# %% [markdown]
# Write files, then read them back in later cells.

# %% Start from the note that is there
from pathlib import Path
print(Path("notes.txt").read_text())

# %% Append to it
with open("notes.txt", "a") as f:
    f.write("- bread\n- café\n")
Path("notes.txt").read_text().splitlines()

# %% Make an output folder and write a report
import os
os.makedirs("out/daily", exist_ok=True)
lines = [f"line {i}: {i * i}" for i in range(5)]
n = Path("out/daily/report.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
n

# %% Read it back, line by line
with open("out/daily/report.txt", encoding="utf-8") as f:
    first = f.readline()
    rest = f.readlines()
first, len(rest), rest[-1]

# %% JSON state saved in one cell ...
import json
state = {"runs": 1, "items": ["milk", "eggs"], "ratio": 2 / 3}
with open("out/state.json", "w") as f:
    json.dump(state, f)
os.path.getsize("out/state.json")

# %% ... and loaded in the next
with open("out/state.json") as f:
    loaded = json.load(f)
loaded == state, loaded["ratio"]

# %% Rename and delete
os.rename("out/daily/report.txt", "out/daily/report-final.txt")
Path("out/scratch.tmp").write_text("temporary")
os.remove("out/scratch.tmp")
sorted(str(p.relative_to("out")) for p in Path("out").rglob("*"))

# %% Exclusive create fails when the file exists
open("notes.txt", "x")

# %% Binary write and read
data = bytes(range(0, 256, 17))
Path("out/bytes.bin").write_bytes(data)
Path("out/bytes.bin").read_bytes() == data, Path("out/bytes.bin").stat().st_size

# %% Seek and tell
with open("out/bytes.bin", "rb") as f:
    f.seek(3)
    b3 = f.read(2)
    pos = f.tell()
b3, pos

# %% Text mode newline translation
with open("out/crlf.txt", "w", newline="\r\n") as f:
    f.write("a\nb\n")
Path("out/crlf.txt").read_bytes(), Path("out/crlf.txt").read_text()

# %% Writing to a closed file
f = open("out/closed.txt", "w")
f.close()
f.write("late")
