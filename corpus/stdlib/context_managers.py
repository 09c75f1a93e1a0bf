# %% A class-based context manager
class Timer:
    """Counts steps instead of seconds, so the output is reproducible."""
    def __init__(self, name):
        self.name, self.steps = name, 0
    def __enter__(self):
        print(f"enter {self.name}")
        return self
    def __exit__(self, exc_type, exc, tb):
        print(f"exit {self.name} after {self.steps} steps, error={exc_type.__name__ if exc_type else None}")
        return False

with Timer("load") as t:
    for _ in range(3):
        t.steps += 1
t.steps

# %% Exceptions pass through unless suppressed
with Timer("fail") as t:
    t.steps += 1
    raise KeyError("missing")

# %% contextmanager decorator
from contextlib import contextmanager, suppress, ExitStack, redirect_stdout, nullcontext
import io

@contextmanager
def tag(name):
    print(f"<{name}>")
    try:
        yield name.upper()
    finally:
        print(f"</{name}>")

with tag("div") as t1, tag("p") as t2:
    print("hello", t1, t2)

# %% suppress
with suppress(FileNotFoundError, KeyError):
    {}["x"]
print("carried on")

# %% ExitStack with a dynamic number of managers
with ExitStack() as stack:
    names = [stack.enter_context(tag(n)) for n in ("a", "b", "c")]
    print(names)

# %% redirect_stdout into a buffer
buf = io.StringIO()
with redirect_stdout(buf):
    print("captured line")
    help_text = "done"
buf.getvalue(), help_text

# %% A manager that swallows its error
class Swallow:
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        print("swallowed", exc[0].__name__)
        return True

with Swallow():
    1 / 0
print("after")

# %% nullcontext
with nullcontext(42) as v:
    v + 1
