# %% [markdown]
# Differential cells: asyncio scheduling order. Cells use top-level await
# (as in Jupyter) unless the title says asyncio-run.

# %% gather-results-in-argument-order
import asyncio
async def f(x, d):
    await asyncio.sleep(d)
    return x
await asyncio.gather(f("a", 0.03), f("b", 0.01), f("c", 0.02))

# %% gather-completion-order
import asyncio
order = []
async def pause(ms):
    # Simulated time, a turn of the loop per 10 ms: the order does not hang on timers
    for _ in range(ms // 10):
        await asyncio.sleep(0)
async def f(x, ms):
    await pause(ms)
    order.append(x)
await asyncio.gather(f("a", 30), f("b", 10), f("c", 20))
order

# %% gather-zero-sleep-interleaving
import asyncio
log = []
async def w(name):
    for i in range(3):
        log.append(f"{name}{i}")
        await asyncio.sleep(0)
await asyncio.gather(w("a"), w("b"))
log

# %% gather-no-await-runs-in-order
import asyncio
log = []
async def w(name):
    log.append(name)
await asyncio.gather(w(1), w(2), w(3))
log

# %% create-task-starts-after-yield
import asyncio
log = []
async def child():
    log.append("child")
async def main():
    t = asyncio.create_task(child())
    log.append("parent before await")
    await t
    log.append("parent after")
await main()
log

# %% as-completed-order
import asyncio
async def pause(ms):
    # Simulated time, a turn of the loop per 10 ms: the order does not hang on timers
    for _ in range(ms // 10):
        await asyncio.sleep(0)
async def f(x, ms):
    await pause(ms)
    return x
out = []
for fut in asyncio.as_completed([f(1, 30), f(2, 10), f(3, 20)]):
    out.append(await fut)
out

# %% wait-first-completed
import asyncio
async def f(x, d):
    await asyncio.sleep(d)
    return x
tasks = [asyncio.create_task(f(i, 0.01 if i == 2 else 10)) for i in range(3)]
done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
res = sorted(t.result() for t in done)
for t in pending:
    t.cancel()
res, len(pending)

# %% wait-for-timeout
import asyncio
try:
    await asyncio.wait_for(asyncio.sleep(10), 0.01)
    r = "finished"
except asyncio.TimeoutError:
    r = "timeout"
r

# %% task-cancel
import asyncio
log = []
async def long():
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        log.append("cancelled")
        raise
t = asyncio.create_task(long())
await asyncio.sleep(0)
t.cancel()
try:
    await t
except asyncio.CancelledError:
    log.append("caller saw cancel")
log, t.cancelled()

# %% gather-exception-propagates
import asyncio
async def bad():
    raise ValueError("bad task")
async def good():
    return 1
await asyncio.gather(good(), bad())

# %% gather-return-exceptions
import asyncio
async def bad():
    raise ValueError("bad task")
async def good():
    return 1
r = await asyncio.gather(good(), bad(), return_exceptions=True)
[repr(x) for x in r]

# %% queue-fifo
import asyncio
q = asyncio.Queue()
for i in range(3):
    q.put_nowait(i)
[q.get_nowait() for _ in range(3)], q.empty()

# %% queue-producer-consumer-order
import asyncio
log = []
async def prod(q):
    for i in range(3):
        await q.put(i)
        log.append(f"put {i}")
    await q.put(None)
async def cons(q):
    while (x := await q.get()) is not None:
        log.append(f"got {x}")
q = asyncio.Queue(maxsize=1)
await asyncio.gather(prod(q), cons(q))
log

# %% priority-queue
import asyncio
q = asyncio.PriorityQueue()
for item in [(3, "c"), (1, "a"), (2, "b")]:
    q.put_nowait(item)
[q.get_nowait()[1] for _ in range(3)]

# %% lock-serializes
import asyncio
log = []
lock = asyncio.Lock()
async def w(n):
    async with lock:
        log.append(f"in {n}")
        await asyncio.sleep(0.001)
        log.append(f"out {n}")
await asyncio.gather(w(1), w(2))
log

# %% semaphore-two-at-a-time
import asyncio
log = []
sem = asyncio.Semaphore(2)
async def pause(ms):
    # Simulated time, a turn of the loop per 10 ms: the order does not hang on timers
    for _ in range(ms // 10):
        await asyncio.sleep(0)
async def w(n):
    async with sem:
        log.append(f"+{n}")
        await pause(10)
        log.append(f"-{n}")
await asyncio.gather(*(w(i) for i in range(4)))
log

# %% event-wait-set
import asyncio
ev = asyncio.Event()
log = []
async def waiter(n):
    await ev.wait()
    log.append(n)
async def setter():
    await asyncio.sleep(0.001)
    ev.set()
await asyncio.gather(waiter(1), waiter(2), setter())
log

# %% async-generator
import asyncio
async def ticks(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield i
[i async for i in ticks(4)]

# %% async-with-context-manager
import asyncio
class ACM:
    async def __aenter__(self):
        print("aenter")
        return 42
    async def __aexit__(self, *a):
        print("aexit")
async with ACM() as v:
    print("inside", v)

# %% async-for-iterator-protocol
class AIt:
    def __init__(self): self.n = 0
    def __aiter__(self): return self
    async def __anext__(self):
        self.n += 1
        if self.n > 3:
            raise StopAsyncIteration
        return self.n
out = []
async for x in AIt():
    out.append(x)
out

# %% asyncio-run-from-sync-function
import asyncio
async def main():
    await asyncio.sleep(0)
    return "ran"
def sync():
    return asyncio.run(main())
sync()

# %% asyncio-run-gather-order
import asyncio
async def pause(ms):
    # Simulated time, a turn of the loop per 10 ms: the order does not hang on timers
    for _ in range(ms // 10):
        await asyncio.sleep(0)
async def main():
    log = []
    async def f(x, ms):
        await pause(ms)
        log.append(x)
    await asyncio.gather(f(1, 20), f(2, 10))
    return log
def sync():
    return asyncio.run(main())
sync()

# %% coroutine-not-awaited-repr
import asyncio
async def c():
    return 1
co = c()
r = type(co).__name__
co.close()
r

# %% await-sleep-result
import asyncio
await asyncio.sleep(0, result="slept")

# %% iscoroutinefunction
import asyncio, inspect
async def c(): pass
def f(): pass
asyncio.iscoroutinefunction(c), inspect.iscoroutinefunction(f)

# %% task-name-and-done
import asyncio
async def c():
    return 5
t = asyncio.create_task(c(), name="job-1")
v = await t
t.get_name(), t.done(), v

# %% call-soon-order
import asyncio
log = []
loop = asyncio.get_running_loop()
for i in range(3):
    loop.call_soon(log.append, i)
await asyncio.sleep(0)
log

# %% call-later-order
import asyncio
log = []
loop = asyncio.get_running_loop()
# Wide gaps: only a 90 ms stall between the two calls could swap the deadlines
loop.call_later(0.1, log.append, "late")
loop.call_later(0.01, log.append, "early")
await asyncio.sleep(0.15)
log

# %% task-group
import asyncio
async def f(x):
    await asyncio.sleep(0.001 * x)
    return x * 10
async with asyncio.TaskGroup() as tg:
    ts = [tg.create_task(f(i)) for i in (3, 1, 2)]
[t.result() for t in ts]

# %% timeout-context
import asyncio
try:
    async with asyncio.timeout(0.01):
        await asyncio.sleep(1)
except TimeoutError:
    r = "timed out"
r

# %% shield-and-gather-nested
import asyncio
async def inner():
    await asyncio.sleep(0)
    return "inner"
await asyncio.gather(asyncio.shield(inner()), asyncio.gather(inner(), inner()))

# %% to-thread
import asyncio
def blocking(x):
    return x * 2
await asyncio.to_thread(blocking, 21)
