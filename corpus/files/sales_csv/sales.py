# %% [markdown]
# # June sales
# Reads `sales.csv` and `returns.csv` beside this notebook and the region
# list in `../shared`, then writes a summary next to them.

# %% Load the orders
import csv

with open("sales.csv", newline="") as f:
    orders = list(csv.DictReader(f))
len(orders), orders[0]

# %% Types and revenue
for o in orders:
    o["qty"] = int(o["qty"])
    o["unit_price"] = float(o["unit_price"])
    o["revenue"] = round(o["qty"] * o["unit_price"], 2)
sum(o["revenue"] for o in orders)

# %% Returns, with a quoted field
with open("returns.csv", newline="") as f:
    returns = {int(r["order_id"]): r for r in csv.DictReader(f)}
for oid, r in returns.items():
    print(oid, r["qty"], r["reason"])

# %% Net revenue per order
price = {int(o["order_id"]): o["unit_price"] for o in orders}
refunds = {oid: int(r["qty"]) * price[oid] for oid, r in returns.items()}
round(sum(refunds.values()), 2)

# %% Region names from the shared folder
with open("../shared/regions.csv", encoding="utf-8") as f:
    regions = {r["code"]: r for r in csv.DictReader(f)}
sorted(r["name"] for r in regions.values())

# %% Revenue by region against target
from collections import defaultdict
by_region = defaultdict(float)
for o in orders:
    by_region[o["region"]] += o["revenue"] - refunds.get(int(o["order_id"]), 0)
for code in sorted(by_region):
    r = regions[code]
    print(f"{r['name']:<6} {by_region[code]:>9.2f}  {by_region[code] / int(r['target']):.2%} of target  ({r['manager']})")

# %% Write the summary
with open("summary.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["region", "net_revenue"])
    for code in sorted(by_region):
        w.writerow([regions[code]["name"], f"{by_region[code]:.2f}"])
print(open("summary.csv").read(), end="")

# %% The folder now
import os
sorted(os.listdir("."))

# %% A file that is not there
open("july.csv")
