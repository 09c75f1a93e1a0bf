# %% [markdown]
# Differential cells: exceptions and their messages. Most cells raise on
# purpose; the expected ename/evalue are CPython's.

# %% zero-division-int
1 // 0

# %% zero-division-float
1.5 / 0.0

# %% zero-division-divmod
divmod(1, 0)

# %% name-error
undefined_name_xyz

# %% name-error-in-function
def f():
    return not_defined_either
f()

# %% unbound-local-error
count = 0
def bump():
    count += 1
bump()

# %% type-error-add
1 + "1"

# %% type-error-call-args
def f(a, b):
    return a
f(1)

# %% type-error-too-many-args
def f(a):
    return a
f(1, 2)

# %% type-error-unexpected-keyword
def f(a):
    return a
f(b=1)

# %% type-error-not-callable
x = 5
x()

# %% type-error-not-subscriptable
nothing = None
nothing[0]

# %% type-error-not-iterable
for i in 5:
    pass

# %% type-error-unhashable
{[1, 2]: 3}

# %% type-error-len
len(5)

# %% type-error-int-arg
int([1])

# %% type-error-str-join
", ".join([1, 2])

# %% type-error-comparison
1 < "a"

# %% type-error-unpack-non-iterable
a, b = 1

# %% value-error-int
int("12.5")

# %% value-error-unpack-too-many
a, b = (1, 2, 3)

# %% value-error-unpack-too-few
a, b, c = (1, 2)

# %% value-error-list-remove
[1].remove(2)

# %% value-error-math-domain
import math
math.log(-1)

# %% value-error-chr
chr(-1)

# %% index-error-list
[][0]

# %% index-error-str
"abc"[10]

# %% index-error-pop-empty
[].pop()

# %% key-error-dict
{"a": 1}["b"]

# %% key-error-tuple-key
{}[(1, 2)]

# %% attribute-error-none
None.foo

# %% attribute-error-str
"abc".push("d")

# %% attribute-error-module
import math
math.tau2

# %% attribute-error-suggestion
class C:
    colour = 1
C().color

# %% import-error-missing-module
import no_such_module_abc

# %% import-error-from
from math import no_such_name

# %% recursion-error
def r(n):
    return r(n + 1)
r(0)

# %% assertion-error-message
assert 1 == 2, "one is not two"

# %% assertion-error-empty
assert False

# %% stop-iteration
next(iter([]))

# %% overflow-error-float-pow
10.0 ** 400

# %% overflow-error-math-exp
import math
math.exp(1000)

# %% unicode-decode-error
b"\xe9".decode("utf-8")

# %% unicode-encode-error
"é".encode("ascii")

# %% lookup-error-codec
"a".encode("no-such-codec")

# %% not-implemented-error
raise NotImplementedError("todo")

# %% runtime-error-custom
raise RuntimeError("something broke")

# %% custom-exception-class
class QuotaExceeded(Exception):
    pass
raise QuotaExceeded("limit 10 reached")

# %% exception-with-args-tuple
raise ValueError("bad", 42)

# %% exception-no-message
raise KeyError

# %% exception-chaining-from
try:
    {}["x"]
except KeyError as e:
    raise ValueError("lookup failed") from e

# %% exception-during-handling
try:
    1 / 0
except ZeroDivisionError:
    undefined_in_handler

# %% exception-str-and-repr
e = ValueError("bad value")
str(e), repr(e), e.args, repr(KeyError("k")), str(KeyError("k"))

# %% exception-notes
try:
    raise ValueError("base")
except ValueError as e:
    e.add_note("extra context")
    r = e.__notes__
r

# %% exception-group-raise
raise ExceptionGroup("many", [ValueError("a"), TypeError("b")])

# %% except-star
try:
    raise ExceptionGroup("eg", [ValueError(1), KeyError(2)])
except* ValueError as g:
    print("value errors:", len(g.exceptions))
except* KeyError as g:
    print("key errors:", len(g.exceptions))

# %% finally-runs-on-return
def f():
    try:
        return "try"
    finally:
        print("finally")
f()

# %% finally-overrides-return
def f():
    try:
        return "try"
    finally:
        return "finally"
f()

# %% output-before-error-is-kept
print("line one")
print("line two")
raise ValueError("after output")

# %% traceback-format-exception-only
import traceback
try:
    int("x")
except ValueError as e:
    r = traceback.format_exception_only(type(e), e)
r

# %% sys-exc-info
import sys
try:
    [][1]
except IndexError:
    t, v, tb = sys.exc_info()
t.__name__, str(v), tb is not None

# %% warnings-catch
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    warnings.warn("careful", UserWarning)
[(x.category.__name__, str(x.message)) for x in w]

# %% syntax-error-unclosed
x = [1, 2

# %% syntax-error-invalid
x = = 1

# %% syntax-error-bad-indent
def f():
return 1

# %% syntax-error-eval
eval("1 +")

# %% keyboard-interrupt-raised
raise KeyboardInterrupt

# %% system-exit-caught
try:
    raise SystemExit(3)
except SystemExit as e:
    r = e.code
r

# %% generator-exit-close
def g():
    try:
        yield 1
    except GeneratorExit:
        print("closing")
        raise
it = g()
next(it)
it.close()

# %% error-in-repr-of-value
class Bad:
    def __repr__(self):
        raise ValueError("repr failed")
Bad()
