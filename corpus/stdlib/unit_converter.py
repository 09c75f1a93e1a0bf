# %% A unit converter with a dispatch table
FACTORS = {
    ("km", "mi"): 0.621371,
    ("mi", "km"): 1.609344,
    ("kg", "lb"): 2.204623,
    ("lb", "kg"): 0.45359237,
    ("l", "gal"): 0.264172,
}

def convert(value, src, dst):
    if src == dst:
        return value
    if (src, dst) in FACTORS:
        return value * FACTORS[(src, dst)]
    if src == "c" and dst == "f":
        return value * 9 / 5 + 32
    if src == "f" and dst == "c":
        return (value - 32) * 5 / 9
    raise ValueError(f"cannot convert {src!r} to {dst!r}")

round(convert(42.195, "km", "mi"), 3)

# %% A batch
jobs = [(10, "km", "mi"), (150, "lb", "kg"), (98.6, "f", "c"), (-40, "c", "f"), (3, "l", "gal")]
for v, a, b in jobs:
    print(f"{v:>7} {a:<3} = {convert(v, a, b):>9.3f} {b}")

# %% Unsupported
convert(1, "km", "kg")

# %% Parse "12.5 km to mi"
import re
def ask(q):
    m = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*(\w+)\s+to\s+(\w+)\s*", q)
    if not m:
        raise ValueError(f"cannot parse {q!r}")
    v, a, b = m.groups()
    return f"{float(v):g} {a} = {convert(float(v), a, b):.2f} {b}"

ask("12.5 km to mi"), ask("  0 c to f ")

# %% Bad question
ask("twelve km in mi")

# %% Reverse conversions agree
all(abs(convert(convert(5, a, b), b, a) - 5) < 1e-3 for (a, b) in FACTORS if (b, a) in FACTORS)

# %% Float input errors
float("1,5")
