# IPython.lib.backgroundjobs: jobs in threads, their status and results
# (each job waits on an event, so what is running is known).

# %% a manager and two jobs
import threading
from IPython.lib import backgroundjobs as bg

class Task:
    def __init__(self, name, func):
        self.name, self.func = name, func
    def __call__(self, *args):
        return self.func(*args)
    def __repr__(self):
        return self.name

gate = threading.Event()
jobs = bg.BackgroundJobManager()
slow = jobs.new(Task("doubler", lambda x: gate.wait() and x * 2), 21)
quick = jobs.new("sum(range(5))")
quick.join()
slow, quick, quick.result, slow.result

# %% the status
jobs.status()

# %% the slow one finishes
gate.set()
slow.join()
jobs.status()
slow.result, slow.status, jobs[0] is slow

# %% a job that dies
def broken():
    raise ValueError("no data")

dead = jobs.new(Task("broken", broken))
dead.join()
dead.status, dead.result, dead.finished

# %% grouped
jobs.status()
len(jobs.completed), len(jobs.dead), len(jobs.running)

# %% flushed
jobs.flush()
jobs.flush()
sorted(jobs.all)

# %% an expression with its own namespace
j = jobs.new("a * b", {"a": 6, "b": 7})
j.join()
j.result, str(j), isinstance(j, bg.BackgroundJobExpr)
