# %% [markdown]
# Load CSVs into a local SQLite database and query it.

# %% Create the database beside the notebook
import sqlite3, csv, os
con = sqlite3.connect("local.db")
con.execute("DROP TABLE IF EXISTS customers")
con.execute("DROP TABLE IF EXISTS orders")
con.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT)")
con.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, item TEXT, amount REAL)")
os.path.exists("local.db")

# %% Load the CSVs
with open("customers.csv", encoding="utf-8", newline="") as f:
    con.executemany("INSERT INTO customers VALUES (:id, :name, :city)", csv.DictReader(f))
with open("orders.csv", encoding="utf-8", newline="") as f:
    con.executemany("INSERT INTO orders VALUES (:id, :customer_id, :item, :amount)", csv.DictReader(f))
con.commit()
con.execute("SELECT count(*) FROM orders").fetchone()[0]

# %% Totals per customer
rows = con.execute("""
    SELECT c.name, c.city, count(o.id), round(sum(o.amount), 2)
    FROM customers c LEFT JOIN orders o ON o.customer_id = c.id
    GROUP BY c.id ORDER BY sum(o.amount) DESC
""").fetchall()
for name, city, n, total in rows:
    print(f"{name:<7} {city:<7} {n} {total:>8.2f}")

# %% Row objects
con.row_factory = sqlite3.Row
r = con.execute("SELECT * FROM orders WHERE item = ? ORDER BY amount", ("keyboard",)).fetchone()
r.keys(), dict(r)

# %% A second connection sees the committed data on disk
con2 = sqlite3.connect("local.db")
con2.execute("SELECT group_concat(item, '|') FROM (SELECT DISTINCT item FROM orders ORDER BY item)").fetchone()

# %% Constraint errors
con.execute("INSERT INTO customers VALUES (1, 'Duplicate', 'Nowhere')")

# %% A transaction rolled back
try:
    with con:
        con.execute("UPDATE orders SET amount = amount * 2")
        raise RuntimeError("abort")
except RuntimeError:
    pass
con.execute("SELECT round(sum(amount), 2) FROM orders").fetchone()[0]

# %% Export a query to CSV and list the folder
with open("report.csv", "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["city", "orders"])
    w.writerows(con.execute("SELECT city, count(o.id) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY city ORDER BY city"))
print(open("report.csv", encoding="utf-8").read(), end="")
sorted(os.listdir("."))

# %% Close
con.close(); con2.close()
os.path.getsize("local.db") > 0
