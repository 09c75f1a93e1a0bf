# Functions made inside functions, as IPython names them: the qualified name
# (outer.<locals>.inner) and the signature. Every cell here also runs on
# Monty, whose functions carry only their name: each name below is given by
# one def (or the notebook's one lambda) alone.

# %% a nested def a function returns
def make_scaler(factor):
    def scale(value, offset=0, *, digits=2, label="x", bounds=(-1, 1.5)):
        return round(value * factor + offset, digits)
    return scale

double = make_scaler(2)
double

# %% it still works, and a second one is the same def
[double(3), make_scaler(3)]

# %% a lambda a function returns
def make_adder(n):
    return lambda x, step=1: x + n * step

make_adder(10)

# %% two levels down
def level_one():
    def level_two():
        def level_three(a, /, b=None, *rest, **options):
            return a
        return level_three
    return level_two()

level_one()

# %% a def in a method, and floats as defaults
class Meter:
    def reader(self):
        def read(unit="m", scale=1e-05, ratio=2.50, big=1e16, tiny=0.0001):
            return unit
        return read

Meter().reader()

# %% a method of a class made in a function
def make_class():
    class Point:
        def moved(self, dx=0, dy=-0.5):
            return self
    return Point

make_class().moved

# %% shown by display() and inside a dict
display(double)
{"adder": make_adder(1), "reader": Meter().reader()}

# %% the same def run again names the same function
def make_scaler(factor):
    def scale(value, offset=0, *, digits=2, label="x", bounds=(-1, 1.5)):
        return round(value * factor + offset, digits)
    return scale

[make_scaler(5), double]

# %% a cell that fails after making a function
def make_checker():
    def check(item: "Item", strict: None = None) -> "bool":
        return True
    return check

checker = make_checker()
checker(1) / 0

# %% that function shown later
checker
