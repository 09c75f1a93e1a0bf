# %% [markdown]
# A notebook in `notebooks/` of a project: data in `../data`, results in
# `../output`, shared lists in `../../shared`.

# %% Project layout seen from here
import os
from pathlib import Path
Path.cwd().name, sorted(os.listdir("..")), sorted(os.listdir("../data"))

# %% Raw files
raw = sorted(Path("../data/raw").glob("*.csv"))
[p.name for p in raw]

# %% Load every site
import csv
samples = []
for p in raw:
    with p.open(newline="") as f:
        for row in csv.DictReader(f):
            samples.append({"site": p.stem[-1].upper(), **{k: (v if k == "sample" else float(v)) for k, v in row.items()}})
len(samples), samples[0]

# %% Site metadata
import json
sites = json.load(open("../data/sites.json", encoding="utf-8"))
{k: v["name"] for k, v in sites.items()}

# %% Mean pH and temperature per site
from statistics import mean
summary = {}
for s in sorted({x["site"] for x in samples}):
    rows = [x for x in samples if x["site"] == s]
    summary[s] = {"n": len(rows), "ph": round(mean(r["ph"] for r in rows), 3), "temp": round(mean(r["temp_c"] for r in rows), 2)}
summary

# %% Write results to ../output
out = Path("../output/summary.json")
out.write_text(json.dumps({sites[k]["name"]: v for k, v in summary.items()}, ensure_ascii=False, indent=1), encoding="utf-8")
print(out.read_text(encoding="utf-8"))

# %% The output folder now
sorted(p.name for p in Path("../output").iterdir())

# %% Reading two levels up
with open("../../shared/regions.csv", encoding="utf-8") as f:
    header = f.readline().strip()
header

# %% Relative path from the project root
os.path.relpath("../data/raw/site_a.csv", ".."), os.path.normpath(os.path.join("..", "data", "raw", "..", "sites.json"))

# %% A path that is not in the project
Path("../data/raw/site_c.csv").read_text()
