# %% Stock levels
stock = {"apples": 12, "pears": 0, "plums": 7}
orders = [("apples", 5), ("plums", 9), ("pears", 1), ("apples", 3)]

# %% Fulfil orders
shipped, short = [], []
for item, qty in orders:
    if stock[item] >= qty:
        stock[item] -= qty
        shipped.append((item, qty))
    else:
        short.append(item)
print("shipped:", shipped)
print("short:", short)
stock

# %% Reorder list
reorder = sorted(k for k, v in stock.items() if v < 5)
reorder

# %% A typo raises, the notebook goes on
stock["bananas"]

# %% Totals
total = sum(stock.values())
f"{total} items left, {len(short)} orders short"
