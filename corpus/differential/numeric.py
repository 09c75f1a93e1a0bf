# %% [markdown]
# Differential cells: ints, floats, math, fractions, decimal. One construct per cell.

# %% int-bit-length
(5).bit_length(), (255).bit_length(), (0).bit_length(), (-8).bit_length()

# %% int-bit-count
(255).bit_count(), (-7).bit_count()

# %% int-to-bytes
(1024).to_bytes(2, "big"), (1024).to_bytes(2, "little")

# %% int-from-bytes
int.from_bytes(b"\x01\x00", "big"), int.from_bytes(b"\xff", "big", signed=True)

# %% int-as-integer-ratio
(7).as_integer_ratio()

# %% int-conjugate-real-imag
(5).real, (5).imag, (5).conjugate(), (5).numerator, (5).denominator

# %% int-parse-base
int("ff", 16), int("0b101", 0), int("777", 8), int(" 42 "), int("1_000")

# %% int-floor-division-negative
-7 // 2, -7 % 2, 7 // -2, 7 % -2

# %% divmod-ints-floats
divmod(17, 5), divmod(-17, 5), divmod(7.5, 2)

# %% pow-three-arg
pow(3, 200, 1000), pow(2, -1, 7)

# %% int-big-arithmetic
2 ** 100 + 1, 3 ** 50 // 7 ** 10, (10 ** 30) % 97

# %% int-true-division
7 / 2, 6 / 3, 1 / 7

# %% float-floor-ceil-trunc
import math
math.floor(-2.5), math.ceil(-2.5), math.trunc(-2.5), int(-2.5)

# %% math-constants
import math
math.pi, math.e, math.tau, math.inf

# %% math-sqrt-isqrt
import math
math.sqrt(2), math.isqrt(99), math.sqrt(16)

# %% math-log
import math
math.log(100, 10), math.log10(1000), math.log2(8), math.log(math.e)

# %% math-trig
import math
round(math.sin(math.pi / 6), 12), math.cos(0), math.atan2(1, 1), math.degrees(math.pi), math.radians(180)

# %% math-hypot-dist
import math
math.hypot(3, 4), math.dist((0, 0), (6, 8)), math.hypot(1, 2, 2)

# %% math-gcd-lcm
import math
math.gcd(48, 18), math.lcm(4, 6), math.gcd(0, 5), math.gcd(12, 18, 24)

# %% math-comb-perm-factorial
import math
math.comb(10, 3), math.perm(5, 2), math.factorial(15)

# %% math-fsum-prod
import math
math.fsum([0.1] * 10), sum([0.1] * 10), math.prod([1, 2, 3, 4])

# %% math-isclose
import math
math.isclose(0.1 + 0.2, 0.3), 0.1 + 0.2 == 0.3, math.isclose(1, 1.01, rel_tol=0.05)

# %% math-isnan-isinf
import math
math.isnan(float("nan")), math.isinf(-math.inf), math.isfinite(1e308)

# %% math-copysign-fabs-fmod
import math
math.copysign(3, -0.0), math.fabs(-2), math.fmod(-7, 3), -7 % 3

# %% math-modf-frexp
import math
math.modf(3.75), math.frexp(8.0), math.ldexp(0.5, 4)

# %% math-sqrt-negative-error
import math
math.sqrt(-1)

# %% math-log-zero-error
import math
math.log(0)

# %% float-overflow
2.0 ** 10000

# %% int-float-conversion-large
float(2 ** 1023), int(1e20)

# %% float-int-overflow
int(float("inf"))

# %% complex-arithmetic
(1 + 2j) * (3 - 1j), abs(3 + 4j), (1j) ** 2, complex("1+2j").conjugate()

# %% complex-attributes
z = 3 - 4j
z.real, z.imag

# %% cmath-sqrt
import cmath
cmath.sqrt(-4), cmath.phase(-1)

# %% bool-arithmetic
True + True, True * 3, sum([True, False, True]), int(True)

# %% comparison-chaining
1 < 2 < 3, 1 < 3 < 2, 2 == 2.0 == True + 1

# %% abs-min-max
abs(-7), min(3, 1, 2), max([4, 9, 2]), min("apple", "fig", key=len), max([], default=0)

# %% sum-start
sum([1, 2, 3], 10), sum([[1], [2]], []), sum([0.5, 0.25])

# %% numeric-tower-isinstance
import numbers
isinstance(1, numbers.Integral), isinstance(1.0, numbers.Real), isinstance(1j, numbers.Complex)

# %% fraction-basic
from fractions import Fraction
Fraction(3, 6), Fraction(1, 3) + Fraction(1, 6), Fraction("0.25"), Fraction(1.5)

# %% fraction-limit-denominator
from fractions import Fraction
import math
Fraction(math.pi).limit_denominator(1000)

# %% fraction-str-repr
from fractions import Fraction
print(Fraction(7, 3), repr(Fraction(7, 3)), float(Fraction(7, 3)))

# %% fraction-zero-division
from fractions import Fraction
Fraction(1, 0)

# %% decimal-basic
from decimal import Decimal
Decimal("0.1") + Decimal("0.2"), Decimal(0.1)

# %% decimal-quantize
from decimal import Decimal, ROUND_HALF_UP, ROUND_HALF_EVEN
Decimal("2.675").quantize(Decimal("0.01"), ROUND_HALF_UP), Decimal("2.665").quantize(Decimal("0.01"), ROUND_HALF_EVEN)

# %% decimal-context-precision
from decimal import Decimal, localcontext
with localcontext() as ctx:
    ctx.prec = 5
    r = Decimal(1) / Decimal(3)
r

# %% decimal-str-repr
from decimal import Decimal
print(Decimal("1.50"), repr(Decimal("1.50")), Decimal("1e3"), Decimal("-0"))

# %% decimal-invalid
from decimal import Decimal
Decimal("abc")

# %% statistics-mean-median
import statistics
statistics.mean([1, 2, 3, 4]), statistics.median([3, 1, 2]), statistics.median([1, 2, 3, 4])

# %% statistics-stdev-variance
import statistics
data = [2, 4, 4, 4, 5, 5, 7, 9]
statistics.pstdev(data), statistics.stdev(data), statistics.variance(data)

# %% statistics-mode-multimode
import statistics
statistics.mode([1, 1, 2, 3, 3]), statistics.multimode("aabbc")

# %% statistics-fmean-geometric-harmonic
import statistics
statistics.fmean([1, 2, 3]), round(statistics.geometric_mean([1, 10, 100]), 9), statistics.harmonic_mean([40, 60])

# %% statistics-quantiles
import statistics
statistics.quantiles([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], n=4)

# %% statistics-correlation
import statistics
statistics.correlation([1, 2, 3, 4], [2, 4, 6, 9]), statistics.linear_regression([1, 2, 3], [2, 4, 6])

# %% statistics-empty-error
import statistics
statistics.mean([])

# %% int-str-conversion-limit
len(str(10 ** 4000))

# %% int-division-by-zero
10 // 0

# %% float-division-by-zero
1.0 / 0

# %% modulo-by-zero
5 % 0

# %% hex-oct-bin-builtins
hex(-255), oct(8), bin(-5), hex(2 ** 70)

# %% int-methods-on-literal-attribute
(10).__add__(5), (3).__truediv__(2), int.__floordiv__(7, 2)

# %% float-methods
(2.5).__round__(), (2.5).__floor__() if hasattr(2.5, "__floor__") else "no __floor__", (7.0).__mod__(3)

# %% int-str-conversion-over-limit
len(str(10 ** 5000))
