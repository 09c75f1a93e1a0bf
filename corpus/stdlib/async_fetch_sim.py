# %% Simulated downloads with asyncio
import asyncio

async def fetch(name, delay):
    await asyncio.sleep(delay)
    return f"{name}:{int(delay * 1000)}ms"

results = await asyncio.gather(fetch("a", 0.03), fetch("b", 0.01), fetch("c", 0.02))
results

# %% Order of completion
async def pause(ms):
    # Simulated time, a turn of the loop per 10 ms: the order does not hang on timers
    for _ in range(ms // 10):
        await asyncio.sleep(0)

async def worker(name, ms, done):
    await pause(ms)
    done.append(name)

done = []
await asyncio.gather(worker("slow", 50, done), worker("fast", 10, done), worker("mid", 30, done))
done

# %% as_completed
async def fetch_sim(name, ms):
    await pause(ms)
    return f"{name}:{ms}ms"

async def main():
    tasks = [asyncio.create_task(fetch_sim(n, ms)) for n, ms in (("x", 40), ("y", 10), ("z", 20))]
    out = []
    for fut in asyncio.as_completed(tasks):
        out.append(await fut)
    return out

await main()

# %% A semaphore limits concurrency
async def limited(sem, i, log):
    async with sem:
        log.append(f"start {i}")
        await asyncio.sleep(0)  # a turn of the loop: the order does not hang on timers
        log.append(f"end {i}")

log = []
sem = asyncio.Semaphore(2)
await asyncio.gather(*(limited(sem, i, log) for i in range(4)))
print("\n".join(log))

# %% A producer/consumer queue
async def producer(q):
    for i in range(5):
        await q.put(i)
    await q.put(None)

async def consumer(q):
    total = 0
    while (item := await q.get()) is not None:
        total += item * item
    return total

q = asyncio.Queue()
_, total = await asyncio.gather(producer(q), consumer(q))
total

# %% Timeouts
try:
    await asyncio.wait_for(asyncio.sleep(1), timeout=0.01)
except asyncio.TimeoutError:
    print("timed out")

# %% Exceptions from gather
async def boom():
    await asyncio.sleep(0)
    raise RuntimeError("boom")

res = await asyncio.gather(fetch("ok", 0), boom(), return_exceptions=True)
[type(r).__name__ if isinstance(r, Exception) else r for r in res]

# %% asyncio.run inside a function that is not async
def run_sync():
    return asyncio.run(fetch("sync", 0.001))

run_sync()
