# %% Type hints are not enforced at run time
from typing import NamedTuple, TypedDict, Protocol, Optional, Union, Generic, TypeVar, Callable, Iterable, runtime_checkable

def greet(name: str, times: int = 1) -> str:
    return " ".join([f"hi {name}"] * times)

greet("ana", 2), greet.__annotations__

# %% NamedTuple with defaults and methods
class Point(NamedTuple):
    x: float
    y: float = 0.0

    def norm(self) -> float:
        return (self.x ** 2 + self.y ** 2) ** 0.5

p = Point(3, 4)
p, p.norm(), p._replace(y=1), Point(1)

# %% TypedDict is a plain dict at run time
class Movie(TypedDict):
    title: str
    year: int

m: Movie = {"title": "Alien", "year": 1979}
m, type(m).__name__

# %% Protocols
@runtime_checkable
class HasArea(Protocol):
    def area(self) -> float: ...

class Sq:
    def __init__(self, s): self.s = s
    def area(self): return self.s ** 2

isinstance(Sq(2), HasArea), isinstance(3, HasArea)

# %% Generics
T = TypeVar("T")

class Stack(Generic[T]):
    def __init__(self) -> None:
        self.items: list[T] = []
    def push(self, item: T) -> None:
        self.items.append(item)
    def pop(self) -> T:
        return self.items.pop()

s: Stack[int] = Stack()
s.push(1); s.push(2)
s.pop(), s.items

# %% Optional and Union
def parse_int(s: str) -> Optional[int]:
    try:
        return int(s)
    except ValueError:
        return None

def show(v: Union[int, str]) -> str:
    return f"{type(v).__name__}:{v}"

[parse_int(x) for x in ("4", "x", "-2")], show(3), show("a")

# %% Callable arguments
def apply_all(fs: Iterable[Callable[[int], int]], x: int) -> list[int]:
    return [f(x) for f in fs]

apply_all([abs, lambda v: v * v, int.__neg__], -3)

# %% Stack underflow
Stack().pop()
