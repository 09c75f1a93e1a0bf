# %% [markdown]
# Exceptions as a traceback shows them: chains, notes, groups, str() that
# raises, control sequences, exit codes and exceptions made from numbers.

# %% raise from
def parse(s):
    try:
        return int(s)
    except ValueError as e:
        raise RuntimeError(f"cannot parse {s!r}") from e
parse("x")

# %% context
try:
    {}["missing"]
except KeyError:
    raise LookupError("while handling")

# %% from None
try:
    {}["missing"]
except KeyError:
    raise LookupError("no context") from None

# %% notes
err = ValueError("bad input")
err.add_note("hint: check the header")
err.add_note("second note")
raise err

# %% group
raise ExceptionGroup("several", [ValueError("a"), TypeError("b")])

# %% nested group
raise ExceptionGroup("outer", [ExceptionGroup("inner", [KeyError("k")]), OSError("o")])

# %% except star
try:
    raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
except* ValueError as g:
    print("handled", [str(x) for x in g.exceptions])

# %% str fails
class Odd(Exception):
    def __str__(self):
        raise RuntimeError("no str")
raise Odd()

# %% control sequences
print("\x1b[1mbold\x1b[0m")
raise RuntimeError("\x1b[31mred\x1b[0m")

# %% [raw]
raise SystemExit("a raw cell never runs")

# %% exit
import sys
sys.exit(2)

# %% exception from a number
raise ValueError(42)

# %% stdout write
import sys
n = sys.stdout.write("written\n")
n

# %% module attribute
import math
math.answer = 42
math.answer
