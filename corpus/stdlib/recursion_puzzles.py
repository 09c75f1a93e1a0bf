# %% Towers of Hanoi
def hanoi(n, src="A", dst="C", via="B", moves=None):
    moves = [] if moves is None else moves
    if n:
        hanoi(n - 1, src, via, dst, moves)
        moves.append(f"{src}->{dst}")
        hanoi(n - 1, via, dst, src, moves)
    return moves

m = hanoi(3)
len(m), " ".join(m)

# %% Moves grow as 2^n - 1
[len(hanoi(n)) for n in range(1, 11)]

# %% All permutations, recursively
def perms(xs):
    if len(xs) <= 1:
        return [xs]
    return [[x] + p for i, x in enumerate(xs) for p in perms(xs[:i] + xs[i + 1:])]

["".join(p) for p in perms(list("abc"))]

# %% Flood fill on a grid
grid = [list(r) for r in ["..##.", ".#..#", "##.#.", "....."]]
def fill(r, c, ch="~"):
    if not (0 <= r < len(grid) and 0 <= c < len(grid[0])) or grid[r][c] != ".":
        return 0
    grid[r][c] = ch
    return 1 + sum(fill(r + dr, c + dc, ch) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)))

print(fill(3, 0))
print("\n".join("".join(r) for r in grid))

# %% Flatten nested lists
def flatten(x):
    for item in x:
        if isinstance(item, list):
            yield from flatten(item)
        else:
            yield item

list(flatten([1, [2, [3, [4, [5]]]], 6, [[7]]]))

# %% Ackermann (small values only)
def ack(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ack(m - 1, 1)
    return ack(m - 1, ack(m, n - 1))

[[ack(m, n) for n in range(4)] for m in range(3)]

# %% Too deep
def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)

depth(100000)

# %% Memoised recursion with a dict
memo = {0: 0, 1: 1}
def fib(n):
    if n not in memo:
        memo[n] = fib(n - 1) + fib(n - 2)
    return memo[n]

fib(90)
