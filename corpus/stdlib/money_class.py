# %% A Money type with operator overloading
from functools import total_ordering

@total_ordering
class Money:
    def __init__(self, cents, currency="EUR"):
        self.cents, self.currency = int(cents), currency

    @classmethod
    def parse(cls, s):
        amount, cur = s.split()
        whole, _, frac = amount.partition(".")
        return cls(int(whole) * 100 + int((frac + "00")[:2]), cur)

    def _check(self, other):
        if not isinstance(other, Money):
            return NotImplemented
        if other.currency != self.currency:
            raise ValueError(f"currency mismatch: {self.currency} vs {other.currency}")
        return None

    def __add__(self, other):
        if other == 0:
            return self
        bad = self._check(other)
        return bad if bad is not None else Money(self.cents + other.cents, self.currency)

    __radd__ = __add__

    def __mul__(self, k):
        return Money(round(self.cents * k), self.currency)

    def __eq__(self, other):
        if isinstance(other, int):
            return self.cents == 0 and other == 0
        return isinstance(other, Money) and (self.cents, self.currency) == (other.cents, other.currency)

    def __lt__(self, other):
        self._check(other)
        return self.cents < other.cents

    def __hash__(self):
        return hash((self.cents, self.currency))

    def __repr__(self):
        return f"Money({self.cents}, {self.currency!r})"

    def __str__(self):
        return f"{self.cents / 100:,.2f} {self.currency}"

prices = [Money.parse(s) for s in ("12.50 EUR", "3.99 EUR", "1200 EUR", "0.5 EUR")]
prices

# %% sum() works through __radd__
total = sum(prices)
print(total)
total

# %% Sorting and comparisons
sorted(prices), max(prices), Money(100) >= Money(100)

# %% Scaling
str(Money(1999) * 1.2), str(Money(1000) * 0.333)

# %% Mixing currencies
Money(1, "EUR") + Money(1, "USD")

# %% Adding a plain number
Money(1) + 5

# %% Set of distinct prices
len({Money(100), Money(100), Money(100, "USD")})
