# %% Roman numerals both ways
NUMERALS = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
            (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]

def to_roman(n):
    if not 0 < n < 4000:
        raise ValueError(f"{n} is out of range (1..3999)")
    out = []
    for value, sym in NUMERALS:
        count, n = divmod(n, value)
        out.append(sym * count)
    return "".join(out)

[to_roman(n) for n in (1, 4, 9, 14, 40, 90, 400, 1994, 2024, 3999)]

# %% Parse back
VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}

def from_roman(s):
    total = 0
    for a, b in zip(s, s[1:] + " "):
        v = VALUES[a]
        total += -v if VALUES.get(b, 0) > v else v
    return total

from_roman("MCMXCIV"), from_roman("XLII")

# %% Round trip for all numbers
all(from_roman(to_roman(n)) == n for n in range(1, 4000))

# %% Longest numeral below 4000
max(range(1, 4000), key=lambda n: len(to_roman(n)))

# %% Out of range
to_roman(0)

# %% Invalid letter
from_roman("XIZ")

# %% A table
for n in range(1, 13):
    print(f"{n:>2} {to_roman(n):<5}", end="  " if n % 4 else "\n")
