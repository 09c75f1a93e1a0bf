# %% Scheduling jobs with a priority queue
import heapq
from dataclasses import dataclass, field

@dataclass(order=True)
class Job:
    priority: int
    seq: int
    name: str = field(compare=False)
    duration: int = field(compare=False)

jobs = []
for seq, (name, prio, dur) in enumerate([("backup", 3, 40), ("email", 1, 5), ("report", 2, 20),
                                          ("deploy", 1, 15), ("cleanup", 5, 10)]):
    heapq.heappush(jobs, Job(prio, seq, name, dur))
jobs[0].name

# %% Run in priority order
clock = 0
while jobs:
    j = heapq.heappop(jobs)
    print(f"t={clock:>3} run {j.name:<8} (p{j.priority}, {j.duration} min)")
    clock += j.duration

# %% nlargest and nsmallest
sizes = {"a.log": 1200, "b.log": 87, "c.log": 5400, "d.log": 640, "e.log": 3100}
heapq.nlargest(2, sizes, key=sizes.get), heapq.nsmallest(2, sizes.items(), key=lambda kv: kv[1])

# %% Merge sorted streams
list(heapq.merge([1, 4, 9], [2, 3, 10], [5]))

# %% Two machines: shortest finishing time first
tasks = [7, 3, 5, 2, 8, 4]
machines = [(0, "m1"), (0, "m2")]
plan = {"m1": [], "m2": []}
for t in sorted(tasks, reverse=True):
    load, m = heapq.heappop(machines)
    plan[m].append(t)
    heapq.heappush(machines, (load + t, m))
plan, sorted(machines)

# %% Pop from an empty heap
heapq.heappop([])

# %% heapify in place
h = [9, 1, 8, 2, 7, 3]
heapq.heapify(h)
h, [heapq.heappop(h) for _ in range(3)]
