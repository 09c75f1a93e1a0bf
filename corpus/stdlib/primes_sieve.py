# %% Sieve of Eratosthenes
import math

def sieve(n):
    is_p = [True] * (n + 1)
    is_p[0:2] = [False, False]
    for i in range(2, math.isqrt(n) + 1):
        if is_p[i]:
            is_p[i * i::i] = [False] * len(range(i * i, n + 1, i))
    return [i for i, p in enumerate(is_p) if p]

primes = sieve(100)
print(len(primes), primes[-5:])

# %% Factorisation
def factorize(n):
    out, d = [], 2
    while d * d <= n:
        while n % d == 0:
            out.append(d)
            n //= d
        d += 1
    if n > 1:
        out.append(n)
    return out

{n: factorize(n) for n in (84, 97, 360, 1001, 2**10 - 1)}

# %% gcd and lcm
math.gcd(84, 360), math.lcm(4, 6, 10), math.gcd(*range(12, 100, 6))

# %% Twin primes
[(p, q) for p, q in zip(primes, primes[1:]) if q - p == 2]

# %% Goldbach for small even numbers
def goldbach(n):
    ps = set(sieve(n))
    return next((p, n - p) for p in sorted(ps) if n - p in ps)

[goldbach(n) for n in range(4, 31, 2)]

# %% Prime counting vs n/ln n
for n in (10, 100, 1000, 10000):
    pi = len(sieve(n))
    print(f"{n:>6} {pi:>5} {n / math.log(n):8.1f} {pi / (n / math.log(n)):.3f}")

# %% Big numbers
2**61 - 1, factorize(2**32 + 1), math.comb(50, 6), math.factorial(20)

# %% Bit tricks on primes
[(p, bin(p), p.bit_length()) for p in primes[:6]]
