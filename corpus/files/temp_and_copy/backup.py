# %% [markdown]
# tempfile and shutil: scratch space, copies and moves.

# %% A temporary directory
import tempfile, os, shutil
from pathlib import Path
with tempfile.TemporaryDirectory() as tmp:
    p = Path(tmp) / "scratch.txt"
    p.write_text("scratch")
    inside = (p.read_text(), sorted(os.listdir(tmp)))
inside, os.path.exists(tmp)

# %% A named temporary file
with tempfile.NamedTemporaryFile("w+", suffix=".csv", delete=True) as t:
    t.write("a,b\n1,2\n")
    t.seek(0)
    content = t.read()
    suffix = Path(t.name).suffix
content, suffix

# %% SpooledTemporaryFile stays in memory
with tempfile.SpooledTemporaryFile(max_size=1024, mode="w+") as s:
    s.write("small")
    s.seek(0)
    r = s.read()
r

# %% Copy a file
shutil.copy("originals/a.txt", "a_copy.txt")
Path("a_copy.txt").read_text(), sorted(f for f in os.listdir(".") if f.endswith(".txt"))

# %% Copy a whole folder
shutil.copytree("originals", "backup")
sorted(os.listdir("backup"))

# %% copy2 and copyfile
shutil.copyfile("originals/b.txt", "backup/b2.txt")
shutil.copy2("originals/c.json", "backup/c2.json")
sorted(os.listdir("backup")), Path("backup/b2.txt").read_text() == Path("originals/b.txt").read_text()

# %% Move and remove
os.makedirs("archive", exist_ok=True)
shutil.move("a_copy.txt", "archive/a.txt")
shutil.rmtree("backup")
sorted(os.listdir(".")), os.listdir("archive")

# %% copytree onto an existing folder fails
shutil.copytree("originals", "archive")

# %% The originals are unchanged
{p.name: p.read_text() for p in sorted(Path("originals").iterdir())}

# %% Disk usage numbers are positive
u = shutil.disk_usage(".")
u.total > 0, u.total >= u.used
