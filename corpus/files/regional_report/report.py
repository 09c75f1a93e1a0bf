# %% [markdown]
# Quarterly report that reads the shared region list and exchange rates
# from `../shared`.

# %% Shared files, found relative to this folder
import os
sorted(os.listdir("../shared"))

# %% Region list
import csv
with open("../shared/regions.csv", encoding="utf-8") as f:
    regions = {r["code"]: r for r in csv.DictReader(f)}
[(c, r["name"], r["manager"]) for c, r in sorted(regions.items())]

# %% Exchange rates
import json
from pathlib import Path
rates = json.loads(Path("../shared/currency_rates.json").read_text())
rates["base"], sorted(rates["rates"]), rates["rates"]["USD"]

# %% Local targets
with open("targets_2024.csv") as f:
    targets = {r["code"]: (int(r["q1"]), int(r["q2"])) for r in csv.DictReader(f)}
targets

# %% Half-year totals in EUR and USD
usd = rates["rates"]["USD"]
for code in sorted(targets):
    h1 = sum(targets[code])
    share = h1 / int(regions[code]["target"])
    print(f"{regions[code]['name']:<6} EUR {h1:>7,}  USD {h1 * usd:>10,.2f}  {share:6.1%} of year")

# %% Path of the shared folder, relative and resolved
shared = Path("../shared")
shared.is_dir(), os.path.relpath(shared.resolve(), Path.cwd()), shared.resolve().name, shared.resolve().parent == Path.cwd().parent

# %% Write the report into the shared folder and read it back
out = shared / "h1_report.txt"
out.write_text("\n".join(f"{c} {sum(t)}" for c, t in sorted(targets.items())) + "\n")
print(out.read_text(), end="")
sorted(os.listdir("../shared"))

# %% A shared file that does not exist
open("../shared/rates_2023.json")
