# %% Number formatting in f-strings
x = 1234567.891
print(f"{x:,.2f}|{x:_.1f}|{x:e}|{x:.3g}|{x:15.1f}|")

# %% Integers
n = 255
f"{n:d} {n:b} {n:o} {n:x} {n:X} {n:#x} {n:08b} {n:+d} {-n: d}"

# %% Alignment and fill
for label, value in (("left", "<"), ("right", ">"), ("center", "^")):
    print(f"[{label:{value}12}] [{'*':{'-'}{value}7}]")

# %% Percentages
done, total = 37, 52
f"{done / total:.1%}", f"{0.5:%}", f"{1/3:.0%}"

# %% round() uses round-half-even on the binary value
round(2.5), round(3.5), round(-0.5), round(2.675, 2), round(1.005, 2), round(0.125, 2), round(1234.5678, -2)

# %% Formatting vs rounding
f"{2.675:.2f}", f"{0.125:.2f}", f"{0.375:.2f}", format(1e16, ",.0f")

# %% repr and str of floats
print(0.1 + 0.2, repr(0.1 + 0.2), 1e22, 1e-7, 123456789012345678.0, float("inf"), -0.0)

# %% Old-style % and str.format
"%5.2f|%-6s|%03d|%x" % (3.14159, "ab", 7, 255), "{0}-{1}-{0}".format("a", "b"), "{name:>6}".format(name="bob")

# %% Nested and debugging specifiers
width, prec, val = 10, 3, 2 / 3
f"{val:{width}.{prec}f}|{val=:.2f}|{width=}"

# %% Conversions
s = "café"
f"{s!r} {s!a} {s!s:>6}"

# %% Dates in f-strings
from datetime import date
d = date(2024, 7, 4)
f"{d:%d %b %Y}", f"{d}", f"{d!r}"

# %% A bad format spec
f"{'text':d}"
