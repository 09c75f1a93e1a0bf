# SymPy's printing in a notebook: init_printing registers its printers with
# the shell's display formatter (text/plain and text/latex).

# %% init_printing
import sympy
from __future__ import annotations
from sympy import symbols, sqrt, Rational, integrate, solve, Matrix, Eq, sin, oo
sympy.init_printing(use_latex="mathjax")
a, b, t = symbols("a b t")

# %% an expression
(a + b) ** 2 / sqrt(t)

# %% a number
Rational(7, 12) + Rational(1, 4)

# %% a list of roots
solve(t**2 - 2, t)

# %% an equation
Eq(a * t**2, b)

# %% a matrix
Matrix([[a, 1], [0, b]])

# %% an integral's value
integrate(sin(t) ** 2, (t, 0, sympy.pi))

# %% a plain int and a float
3, 2.5

# %% a list of strings
["x", "y"]

# %% a dict of expressions
{a: t + 1, b: oo}

# %% displayed
display(a**3 - b, sqrt(2))

# %% printed as text
print(sqrt(a) + 1)

# %% the __future__ import holds in later cells
def area(r: Radius) -> Square:
    return r * r
area.__annotations__
