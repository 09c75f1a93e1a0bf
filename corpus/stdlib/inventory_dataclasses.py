# %% Inventory items as dataclasses
from dataclasses import dataclass, field, asdict, replace

@dataclass(order=True)
class Item:
    sku: str
    name: str = field(compare=False)
    qty: int = field(default=0, compare=False)
    price: float = field(default=0.0, compare=False)
    tags: list = field(default_factory=list, compare=False)

    @property
    def value(self):
        return round(self.qty * self.price, 2)

stock = [
    Item("B-200", "bolt", 500, 0.05, ["metal"]),
    Item("A-100", "anchor", 20, 1.25),
    Item("C-300", "clamp", 35, 3.40, ["metal", "tool"]),
]
stock[0]

# %% Sorted by SKU (order=True compares sku only)
[i.sku for i in sorted(stock)]

# %% Total stock value
total = sum(i.value for i in stock)
print(f"total value: {total:.2f}")

# %% As dicts
asdict(stock[1])

# %% Replace makes a copy
restocked = replace(stock[1], qty=stock[1].qty + 30)
restocked.qty, stock[1].qty

# %% Low stock report
for item in sorted(stock, key=lambda i: i.qty):
    flag = "LOW" if item.qty < 30 else ""
    print(f"{item.sku:6} {item.name:8} {item.qty:5d} {flag}")

# %% Equality ignores non-compared fields
Item("A-100", "other name") == stock[1]

# %% Frozen dataclass
@dataclass(frozen=True)
class Location:
    aisle: int
    shelf: str

loc = Location(3, "B")
try:
    loc.aisle = 4
except Exception as e:
    print(type(e).__name__, e)
loc
