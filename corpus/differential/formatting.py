# %% [markdown]
# Differential cells: string and number formatting. One construct per cell;
# the title names it. Every cell stands alone.

# %% fstring-basic
name, n = "ada", 3
f"{name} has {n} items"

# %% fstring-float-2f
f"{3.14159:.2f}"

# %% fstring-float-comma
f"{1234567.891:,.2f}"

# %% fstring-underscore-sep
f"{1234567:_}"

# %% fstring-int-width
f"[{42:6d}]"

# %% fstring-zero-pad
f"{7:03d}"

# %% fstring-align-left
f"[{'ab':<6}]"

# %% fstring-align-right
f"[{'ab':>6}]"

# %% fstring-align-center
f"[{'ab':^7}]"

# %% fstring-fill-char
f"[{'ab':*^8}]"

# %% fstring-sign-plus
f"{5:+d} {-5:+d}"

# %% fstring-sign-space
f"{5: d}|{-5: d}"

# %% fstring-hex
f"{255:x} {255:X} {255:#x} {255:#o} {255:#b}"

# %% fstring-binary-pad
f"{5:08b}"

# %% fstring-percent
f"{0.256:.1%}"

# %% fstring-exponent
f"{12345.678:e} {12345.678:.2E}"

# %% fstring-general
f"{0.00001234:g} {123456789.0:g} {1.5:g}"

# %% fstring-nested-spec
w, p = 10, 3
f"{3.14159:{w}.{p}f}"

# %% fstring-debug-equals
x = 7
f"{x=}"

# %% fstring-debug-spec
y = 2 / 3
f"{y=:.3f}"

# %% fstring-repr-conversion
f"{'hi'!r}"

# %% fstring-ascii-conversion
f"{'héllo'!a}"

# %% fstring-dict-access
d = {"k": 1}
f"{d['k']}"

# %% fstring-expression
f"{2 ** 10} {[i * i for i in range(4)]}"

# %% fstring-braces-escape
f"{{literal}} {1 + 1}"

# %% fstring-multiline
a, b = 1, 2
(f"a={a}, "
 f"b={b}")

# %% fstring-date-spec
from datetime import date
f"{date(2024, 1, 5):%Y/%m/%d}"

# %% fstring-thousands-float-width
f"{9876543.21:>15,.1f}"

# %% format-builtin
format(1234.5, "08.2f"), format(3, "b"), format("x", ">3")

# %% str-format-positional
"{} + {} = {}".format(1, 2, 3)

# %% str-format-indexed
"{1}{0}{1}".format("a", "b")

# %% str-format-named
"{who} is {age}".format(who="bo", age=9)

# %% str-format-attribute
import fractions
"{0.numerator}/{0.denominator}".format(fractions.Fraction(3, 4))

# %% str-format-map
"{a}-{b}".format_map({"a": 1, "b": 2})

# %% percent-format-basic
"%s is %d years" % ("al", 30)

# %% percent-format-float
"%.3f|%8.2f|%-8.2f|" % (3.14159, 2.5, 2.5)

# %% percent-format-dict
"%(x)s=%(y)05d" % {"x": "n", "y": 42}

# %% percent-format-hex
"%x %X %o %#x" % (255, 255, 8, 255)

# %% percent-format-repr
"%r" % ("q",)

# %% percent-literal
"100%% sure" % ()

# %% round-half-even
round(0.5), round(1.5), round(2.5), round(-1.5)

# %% round-ndigits
round(3.14159, 2), round(2.675, 2), round(1.005, 2)

# %% round-ndigits-more
round(0.125, 2), round(0.375, 2), round(5.5551, 3), round(1/3, 5)

# %% round-negative-ndigits
round(1234.5678, -2), round(1250, -2), round(1350, -2)

# %% round-int-ndigits
round(17, 1), type(round(17, 1)).__name__, round(17.0, 1)

# %% round-none-returns-int
type(round(2.7)).__name__, type(round(2.7, 0)).__name__

# %% round-money-sum
prices = [19.99, 5.01, 3.333]
round(sum(prices), 2)

# %% float-repr-shortest
0.1, 0.1 + 0.2, 1 / 3, 2 / 3

# %% float-repr-large
1e16, 1e15, 123456789012345678.0, 1.5e300 * 1e10

# %% float-repr-small
1e-4, 1e-5, 0.000123, 5e-324

# %% float-str-special
str(float("inf")), str(float("-inf")), str(float("nan")), -0.0

# %% float-is-integer
(3.0).is_integer(), (3.5).is_integer()

# %% float-hex
(1.5).hex(), float.fromhex("0x1.8p1")

# %% float-as-integer-ratio
(0.75).as_integer_ratio(), (0.1).as_integer_ratio()

# %% int-str-big
str(2 ** 200)

# %% int-repr-underscore-literal
1_000_000 + 0x_ff

# %% str-zfill
"42".zfill(5), "-42".zfill(5)

# %% str-center-ljust-rjust
"ab".center(6, "."), "ab".ljust(4, "-"), "ab".rjust(4)

# %% str-expandtabs
"a\tb\tc".expandtabs(4)

# %% print-sep-end
print(1, 2, 3, sep=", ", end=".\n")

# %% print-multiple-types
print("x", 1, 2.5, None, True, [1], {"a": 1}, (1,))

# %% print-empty
print()
print("after blank")

# %% print-flush-file
import sys
print("to stderr", file=sys.stderr)
print("to stdout", flush=True)

# %% repr-nested-quotes
repr("it's"), repr('say "hi"'), repr("both ' and \"")

# %% repr-escapes
repr("tab\tnew\nline\\ \x00 \x7f é 😀")

# %% str-vs-repr-in-containers
print(["a", 1.0, None]), str(["a"]), repr("a")

# %% bytes-repr
b"abc\x00\xff\n", bytes([65, 66, 200])

# %% format-bool
f"{True} {True:d} {False!r} {True:>6}"

# %% format-none
f"{None} {None!r}"

# %% format-complex
f"{3+4j}", f"{(1.5-2j):.2f}", complex(1, -0.0)

# %% format-decimal
from decimal import Decimal
f"{Decimal('3.14159'):.3f}", f"{Decimal('1234.5'):,}"

# %% format-int-as-float
f"{5:.2f}", f"{5:e}", f"{5:%}"

# %% format-thousands-negative
f"{-1234567:,}", f"{-0.5:.0f}", f"{0.5:.0f}", f"{1.5:.0f}"

# %% str-format-alignment-numbers
"{:>8.3f}|{:<8d}|{:^8}".format(3.14159, 42, "mid")
