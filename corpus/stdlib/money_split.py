# %% Splitting a bill in cents
def split(total_cents, people):
    base, extra = divmod(total_cents, people)
    return [base + (1 if i < extra else 0) for i in range(people)]

split(10000, 3), sum(split(10000, 3))

# %% Format cents
def money(c):
    sign = "-" if c < 0 else ""
    d, c = divmod(abs(c), 100)
    return f"{sign}${d:,}.{c:02d}"

[money(c) for c in (0, 5, 12345, -99, 1234567)]

# %% Who owes whom
paid = {"ann": 6000, "bob": 1500, "cat": 0, "dan": 4500}
total = sum(paid.values())
fair = split(total, len(paid))
balance = {p: paid[p] - f for p, f in zip(sorted(paid), fair)}
balance

# %% Settle debts greedily
def settle(balance):
    debtors = sorted((v, p) for p, v in balance.items() if v < 0)
    creditors = sorted(((v, p) for p, v in balance.items() if v > 0), reverse=True)
    moves = []
    while debtors and creditors:
        (d, dp), (c, cp) = debtors[0], creditors[0]
        amount = min(-d, c)
        moves.append(f"{dp} pays {cp} {money(amount)}")
        debtors[0], creditors[0] = (d + amount, dp), (c - amount, cp)
        if debtors[0][0] == 0:
            debtors.pop(0)
        if creditors[0][0] == 0:
            creditors.pop(0)
    return moves

print("\n".join(settle(balance)))

# %% Tip table
for pct in (10, 15, 18, 20):
    tip = round(8642 * pct / 100)
    print(f"{pct:>3}%  tip {money(tip):>8}  total {money(8642 + tip):>9}")

# %% Splitting among zero people
split(100, 0)

# %% Compound interest
balance = 100_000
for year in range(1, 6):
    balance = round(balance * 1.035)
    print(year, money(balance))
