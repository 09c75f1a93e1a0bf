# %% An account class with its own errors
class InsufficientFunds(Exception):
    def __init__(self, balance, amount):
        super().__init__(f"cannot withdraw {amount:.2f}: balance is {balance:.2f}")
        self.balance = balance
        self.amount = amount

class Account:
    def __init__(self, owner, balance=0.0):
        self.owner = owner
        self.balance = balance
        self.history = []

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("deposit must be positive")
        self.balance += amount
        self.history.append(("deposit", amount))
        return self

    def withdraw(self, amount):
        if amount > self.balance:
            raise InsufficientFunds(self.balance, amount)
        self.balance -= amount
        self.history.append(("withdraw", amount))
        return self

    def __repr__(self):
        return f"Account({self.owner!r}, balance={self.balance:.2f})"

acct = Account("mia").deposit(100).withdraw(30)
acct

# %% History
acct.history

# %% Overdraw
acct.withdraw(500)

# %% Catch it
try:
    acct.withdraw(500)
except InsufficientFunds as e:
    print("refused:", e)
    print(e.amount - e.balance)

# %% Bad deposit
try:
    acct.deposit(-5)
except ValueError as e:
    print(f"{type(e).__name__}: {e}")

# %% A savings account with interest
class Savings(Account):
    rate = 0.02

    def add_interest(self):
        interest = round(self.balance * self.rate, 2)
        return self.deposit(interest)

s = Savings("leo", 1000)
s.add_interest().add_interest()
s

# %% isinstance and the MRO
isinstance(s, Account), [c.__name__ for c in Savings.__mro__]

# %% Statement
for kind, amount in s.history:
    print(f"{kind:>10}: {amount:8.2f}")
print(f"{'balance':>10}: {s.balance:8.2f}")
