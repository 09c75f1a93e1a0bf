# %% Matrices as lists of lists
A = [[2, 0, 1], [1, 3, 2], [1, 1, 2]]
B = [[1, 2], [0, 1], [4, 0]]

def shape(m):
    return len(m), len(m[0])

shape(A), shape(B)

# %% Transpose
def transpose(m):
    return [list(row) for row in zip(*m)]

transpose(B)

# %% Multiply
def matmul(x, y):
    yt = transpose(y)
    return [[sum(a * b for a, b in zip(row, col)) for col in yt] for row in x]

matmul(A, B)

# %% Determinant by cofactor expansion (recursive)
def det(m):
    if len(m) == 1:
        return m[0][0]
    total = 0
    for j, v in enumerate(m[0]):
        minor = [row[:j] + row[j + 1:] for row in m[1:]]
        total += (-1) ** j * v * det(minor)
    return total

det(A)

# %% Identity and powers
def identity(n):
    return [[int(i == j) for j in range(n)] for i in range(n)]

def power(m, k):
    result = identity(len(m))
    for _ in range(k):
        result = matmul(result, m)
    return result

power(A, 3)

# %% Pretty print
def show(m):
    width = max(len(str(v)) for row in m for v in row)
    for row in m:
        print(" ".join(f"{v:>{width}}" for v in row))

show(power(A, 3))

# %% Shapes must agree
matmul(B, B)

# %% Inverse with fractions
from fractions import Fraction

def inverse(m):
    n = len(m)
    aug = [[Fraction(v) for v in row] + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(m)]
    for c in range(n):
        p = next(r for r in range(c, n) if aug[r][c] != 0)
        aug[c], aug[p] = aug[p], aug[c]
        pivot = aug[c][c]
        aug[c] = [v / pivot for v in aug[c]]
        for r in range(n):
            if r != c:
                f = aug[r][c]
                aug[r] = [a - f * b for a, b in zip(aug[r], aug[c])]
    return [row[n:] for row in aug]

inv = inverse(A)
[[str(v) for v in row] for row in inv]

# %% Check
matmul(A, inv) == identity(3)
