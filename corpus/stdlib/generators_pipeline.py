# %% A lazy processing pipeline
import itertools

def read_records():
    data = "3,apple\n\n5,banana\n#comment\n2,cherry\n7,date\nx,bad\n1,elder\n"
    for line in data.splitlines():
        yield line

def non_blank(lines):
    for line in lines:
        if line and not line.startswith("#"):
            yield line

def parse(lines):
    for line in lines:
        n, _, name = line.partition(",")
        try:
            yield int(n), name
        except ValueError:
            print("skipping", repr(line))

pipeline = parse(non_blank(read_records()))
type(pipeline).__name__

# %% Consume part of it
list(itertools.islice(pipeline, 2))

# %% The rest
rest = list(pipeline)
rest

# %% An exhausted generator
list(pipeline)

# %% yield from and send
def averager():
    total = count = 0
    avg = None
    while True:
        value = yield avg
        total += value
        count += 1
        avg = total / count

a = averager()
next(a)
[a.send(v) for v in (10, 20, 60)]

# %% Generator expressions are lazy
squares = (n * n for n in itertools.count(1))
list(itertools.takewhile(lambda s: s < 50, squares))

# %% Fibonacci generator
def fib():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b

print(*itertools.islice(fib(), 15))

# %% StopIteration from next()
it = iter([1])
next(it)
next(it)

# %% Return value of a generator
def gen():
    yield 1
    return "done"

def outer():
    result = yield from gen()
    print("inner returned", result)

list(outer())
