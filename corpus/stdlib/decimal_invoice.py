# %% An invoice with Decimal money
from decimal import Decimal, ROUND_HALF_UP, getcontext
lines = [("consulting", Decimal("7.5"), Decimal("120.00")),
         ("travel", Decimal("1"), Decimal("86.35")),
         ("materials", Decimal("3"), Decimal("19.99"))]
CENT = Decimal("0.01")
subtotal = sum(q * p for _, q, p in lines)
subtotal

# %% Tax rounded half up
tax = (subtotal * Decimal("0.0825")).quantize(CENT, rounding=ROUND_HALF_UP)
total = subtotal + tax
tax, total

# %% The printed invoice
for name, q, p in lines:
    print(f"{name:<12}{q:>6}{p:>10}{(q * p).quantize(CENT):>10}")
print(f"{'subtotal':<28}{subtotal:>10}")
print(f"{'tax 8.25%':<28}{tax:>10}")
print(f"{'total':<28}{total:>10}")

# %% Float vs Decimal
0.1 + 0.2, Decimal("0.1") + Decimal("0.2")

# %% Banker's rounding is the default
[Decimal(s).quantize(Decimal("1")) for s in ("0.5", "1.5", "2.5", "3.5")]

# %% Precision
getcontext().prec = 6
Decimal(1) / Decimal(7)

# %% Back to the default precision
getcontext().prec = 28
Decimal(1) / Decimal(7)

# %% Split the total three ways
share = (total / 3).quantize(CENT, rounding=ROUND_HALF_UP)
shares = [share, share, total - 2 * share]
shares, sum(shares) == total

# %% Invalid input
Decimal("12,50")
