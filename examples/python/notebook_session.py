"""A notebook session with a host function: cells run one after another in
one sandbox, keeping their names; the code reaches the host only through
the function it is given (here a lookup in the program's own data); output
streams while a cell runs.

    python examples/python/notebook_session.py
"""

from __future__ import annotations

import sys
from typing import Any

from backyard_ls import Sandbox

INVENTORY = {"apples": {"count": 12, "price": 0.5}, "pears": {"count": 4, "price": 0.75}}


def stock(item: str) -> dict[str, Any]:
    """A host function: the cell calls it like any function; it runs here."""
    if item not in INVENTORY:
        raise KeyError(f"no item {item!r}")
    return INVENTORY[item]


CELLS = [
    "items = ['apples', 'pears']\nrows = {name: stock(name) for name in items}\nlen(rows)",
    "for name, row in rows.items():\n    print(f\"{name:8} {row['count']:3} × {row['price']:.2f}\")",
    "value = sum(r['count'] * r['price'] for r in rows.values())\nvalue",
    "stock('plums')",
]


def main() -> None:
    with Sandbox(functions=[stock], on_stdout=sys.stdout.write) as nb:
        for cell in CELLS:
            r = nb.run(cell)
            if r.error is not None:
                print(f"[{r.execution_count}] {r.error}")
            elif r.value is not None:
                print(f"Out[{r.execution_count}]: {r.value}")
        print("names:", ", ".join(v.name for v in nb.variables()))


if __name__ == "__main__":
    main()
