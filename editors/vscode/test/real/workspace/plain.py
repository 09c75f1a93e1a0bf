total = 1 + 1
total
