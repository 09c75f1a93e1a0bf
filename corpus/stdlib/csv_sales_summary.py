# %% [markdown]
# Sales summary from a CSV export pasted into the notebook.

# %% Raw data
import csv
import io

raw = """date,region,product,units,unit_price
2024-01-03,north,widget,12,2.50
2024-01-03,south,gadget,3,19.99
2024-01-04,north,gadget,1,19.99
2024-01-05,east,widget,40,2.45
2024-01-05,south,widget,7,2.50
2024-01-06,east,gizmo,2,149.00
2024-01-07,north,widget,9,2.50
"""
rows = list(csv.DictReader(io.StringIO(raw)))
len(rows)

# %% First row
rows[0]

# %% Convert types
for r in rows:
    r["units"] = int(r["units"])
    r["unit_price"] = float(r["unit_price"])
    r["revenue"] = round(r["units"] * r["unit_price"], 2)
[r["revenue"] for r in rows]

# %% Revenue by region
from collections import defaultdict
by_region = defaultdict(float)
for r in rows:
    by_region[r["region"]] += r["revenue"]
for region in sorted(by_region):
    print(f"{region:<6}{by_region[region]:>10.2f}")

# %% Units by product, most first
units = defaultdict(int)
for r in rows:
    units[r["product"]] += r["units"]
sorted(units.items(), key=lambda kv: kv[1], reverse=True)

# %% Write a summary CSV to a string
out = io.StringIO()
w = csv.writer(out, lineterminator="\n")
w.writerow(["region", "revenue"])
for region in sorted(by_region):
    w.writerow([region, f"{by_region[region]:.2f}"])
print(out.getvalue(), end="")

# %% Best day
by_day = defaultdict(float)
for r in rows:
    by_day[r["date"]] += r["revenue"]
best = max(by_day, key=by_day.get)
best, round(by_day[best], 2)
