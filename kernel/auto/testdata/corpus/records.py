# %% Dataclasses
from dataclasses import dataclass

@dataclass
class Employee:
    name: str
    dept: str
    salary: int

staff = [
    Employee("ada", "eng", 120),
    Employee("bob", "ops", 90),
    Employee("cy", "eng", 110),
]
staff[0]

# %% Group by department
from collections import defaultdict
by_dept = defaultdict(list)
for e in staff:
    by_dept[e.dept].append(e.name)
dict(by_dept)

# %% Payroll
payroll = {d: sum(e.salary for e in staff if e.dept == d) for d in by_dept}
payroll

# %% Raise a ValueError deliberately
def check(e):
    if e.salary > 115:
        raise ValueError(f"{e.name} is over budget")
    return True
[check(e) for e in staff]

# %% Still here
len(staff)
