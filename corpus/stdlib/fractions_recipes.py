# %% Scaling a recipe with exact fractions
from fractions import Fraction as F
recipe = {"flour (cups)": F(9, 4), "sugar (cups)": F(2, 3), "eggs": F(2), "butter (tbsp)": F(5, 2)}
recipe["flour (cups)"]

# %% Scale by 3/2
scaled = {k: v * F(3, 2) for k, v in recipe.items()}
for k, v in scaled.items():
    print(f"{k:<14} {v}")

# %% Mixed numbers
def mixed(fr):
    whole, rest = divmod(fr.numerator, fr.denominator)
    if rest == 0:
        return str(whole)
    return f"{whole} {rest}/{fr.denominator}" if whole else f"{rest}/{fr.denominator}"

{k: mixed(v) for k, v in scaled.items()}

# %% From floats and strings
F("0.125"), F(0.1), F(0.1).limit_denominator(100), F("3/12")

# %% Arithmetic stays exact
sum(F(1, n) for n in range(1, 7))

# %% Compare with float
float(sum(F(1, n) for n in range(1, 7))), sum(1 / n for n in range(1, 7))

# %% Egyptian fractions (greedy)
def egyptian(fr):
    parts = []
    while fr.numerator:
        d = -(-fr.denominator // fr.numerator)
        parts.append(F(1, d))
        fr -= F(1, d)
    return parts

[str(p) for p in egyptian(F(7, 15))]

# %% Division by zero
F(1, 0)
