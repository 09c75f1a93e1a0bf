# %% [markdown]
# # Weekly sales
# Plain-Python data munging: parse CSV text, group, summarise.

# %% Load the data
import json
from collections import Counter, defaultdict

raw = """date,region,product,units,price
2026-11-02,north,widget,12,2.50
2026-11-02,south,gadget,3,19.99
2026-11-03,north,gadget,5,19.99
2026-11-04,east,widget,30,2.40
2026-11-05,south,widget,8,2.50
2026-11-06,east,gizmo,2,99.00
2026-11-06,north,widget,14,2.50"""

header, *lines = raw.splitlines()
fields = header.split(",")
rows = [dict(zip(fields, line.split(","))) for line in lines]
for row in rows:
    row["units"] = int(row["units"])
    row["price"] = float(row["price"])
len(rows)

# %% Revenue by region
revenue = defaultdict(float)
for row in rows:
    revenue[row["region"]] += row["units"] * row["price"]
for region, total in sorted(revenue.items(), key=lambda kv: -kv[1]):
    print(f"{region:<6} {total:>8.2f}")

# %% Best sellers by units
units = Counter()
for row in rows:
    units[row["product"]] += row["units"]
units.most_common(2)

# %% Export a summary
summary = {
    "rows": len(rows),
    "total": f"{sum(revenue.values()):.2f}",
    "top_region": max(revenue, key=lambda r: revenue[r]),
}
print(json.dumps(summary, indent=2))
