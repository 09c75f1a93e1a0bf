# %% try / except / else / finally
def divide(a, b):
    try:
        result = a / b
    except ZeroDivisionError:
        print("cannot divide by zero")
        return None
    else:
        print("ok")
        return result
    finally:
        print("finally runs")

divide(6, 3), divide(1, 0)

# %% Messages of common errors
def message(f):
    try:
        f()
    except Exception as e:
        return f"{type(e).__name__}: {e}"

for f in (lambda: [][1], lambda: {}["k"], lambda: int("x1"), lambda: None.upper(),
          lambda: 1 + "a", lambda: "abc".index("z"), lambda: float("nan") < "s",
          lambda: [1, 2].remove(3), lambda: ().__getitem__(0), lambda: {1}.pop() + {}.popitem()[0]):
    print(message(f))

# %% Exception chaining
class ConfigError(Exception):
    pass

def load(cfg):
    try:
        return int(cfg["port"])
    except (KeyError, ValueError) as e:
        raise ConfigError(f"bad port in {cfg!r}") from e

try:
    load({"port": "http"})
except ConfigError as e:
    print(e, "| caused by", repr(e.__cause__))

# %% Uncaught, chained
load({})

# %% Exception groups (3.11)
def run_all():
    errors = []
    for v in ("1", "x", None):
        try:
            int(v)
        except (ValueError, TypeError) as e:
            errors.append(e)
    if errors:
        raise ExceptionGroup("conversion failed", errors)

try:
    run_all()
except* ValueError as eg:
    print("values:", [str(e) for e in eg.exceptions])
except* TypeError as eg:
    print("types:", [type(e).__name__ for e in eg.exceptions])

# %% Custom exception hierarchy
class AppError(Exception): pass
class NotFound(AppError):
    def __init__(self, what):
        super().__init__(f"{what} not found")
        self.what = what

try:
    raise NotFound("user 42")
except AppError as e:
    print(type(e).__name__, e.args, e.what)

# %% assert
def mean(xs):
    assert xs, "mean of an empty list"
    return sum(xs) / len(xs)

mean([])

# %% Re-raise after logging
try:
    try:
        [1, 2, 3][7]
    except IndexError:
        print("logging the error")
        raise
except IndexError as e:
    print("outer caught:", e)
