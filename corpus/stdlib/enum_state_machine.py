# %% Order states as an Enum
from enum import Enum, IntEnum, Flag, auto

class State(Enum):
    NEW = auto()
    PAID = auto()
    SHIPPED = auto()
    DELIVERED = auto()
    CANCELLED = auto()

State.PAID, State.PAID.value, State["SHIPPED"], State(4)

# %% Allowed transitions
ALLOWED = {
    State.NEW: {State.PAID, State.CANCELLED},
    State.PAID: {State.SHIPPED, State.CANCELLED},
    State.SHIPPED: {State.DELIVERED},
}

class Order:
    def __init__(self, oid):
        self.oid, self.state, self.log = oid, State.NEW, []

    def to(self, new):
        if new not in ALLOWED.get(self.state, set()):
            raise ValueError(f"order {self.oid}: {self.state.name} -> {new.name} not allowed")
        self.log.append((self.state.name, new.name))
        self.state = new
        return self

o = Order(7).to(State.PAID).to(State.SHIPPED)
o.state, o.log

# %% Illegal transition
o.to(State.CANCELLED)

# %% Iterate members
[s.name for s in State]

# %% IntEnum compares with ints
class Priority(IntEnum):
    LOW = 1
    MEDIUM = 2
    HIGH = 3

sorted([Priority.HIGH, Priority.LOW, 2]), Priority.HIGH > 2

# %% Flags
class Perm(Flag):
    READ = auto()
    WRITE = auto()
    EXEC = auto()

rw = Perm.READ | Perm.WRITE
rw, Perm.WRITE in rw, Perm.EXEC in rw

# %% Unknown value
State(9)

# %% str and repr
print(str(State.NEW), repr(Priority.LOW), f"{Priority.LOW}")
