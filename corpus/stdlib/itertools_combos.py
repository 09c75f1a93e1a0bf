# %% Combinatorics with itertools
from itertools import product, permutations, combinations, combinations_with_replacement, groupby, accumulate, chain, zip_longest, pairwise, starmap, cycle, islice, compress, repeat
list(product("ab", [1, 2]))

# %% Permutations and combinations
len(list(permutations(range(5), 3))), list(combinations("abcd", 2))

# %% With replacement
["".join(c) for c in combinations_with_replacement("xyz", 2)]

# %% Group consecutive runs
data = "aaabccddddde"
[(k, len(list(g))) for k, g in groupby(data)]

# %% Group sorted records
sales = [("east", 3), ("west", 5), ("east", 2), ("north", 1), ("west", 4)]
for region, grp in groupby(sorted(sales), key=lambda s: s[0]):
    print(region, sum(n for _, n in grp))

# %% Running totals and maximum
list(accumulate([3, 1, 4, 1, 5, 9, 2])), list(accumulate([3, 1, 4, 1, 5, 9, 2], max))

# %% Chain and zip_longest
list(chain([1, 2], "ab", (None,))), list(zip_longest("abc", [1], fillvalue="-"))

# %% Pairwise differences
temps = [12, 15, 11, 18, 21]
[b - a for a, b in pairwise(temps)]

# %% Starmap, cycle, compress, repeat
list(starmap(pow, [(2, 5), (3, 2)])), list(islice(cycle("RGB"), 7)), list(compress("abcdef", [1, 0, 1, 0, 1, 1])), list(repeat("x", 3))

# %% Subsets summing to a target
coins = [1, 2, 5, 10, 20]
[c for r in range(1, len(coins) + 1) for c in combinations(coins, r) if sum(c) == 17]
