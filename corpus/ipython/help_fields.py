# Help's fields, as IPython 9 shows them: a signature longer than a line
# is one parameter a line, a class's init signature, a bound method, an
# instance of a library class, a property, and %pinfo's own ways to ask.

# %% a long signature, one parameter a line
import collections
collections.namedtuple?

# %% %pdef lays it out the same
%pdef collections.namedtuple

# %% a short one stays on its line
%pdef collections.Counter.most_common

# %% markers and annotations count in the length
exec(compile('''def schedule(task_name, start_time, /, interval_seconds: float = 60.0, *, retries=3, callback=None) -> bool:
    """Schedules a task."""
''', "<string>", "exec"))
schedule?

# %% 75 characters stay on the line
exec(compile('''def pad(abcdefghij, klmnopqrst, uvwxyzabcd, efghijklmn, opqrstuvwx, yz=1234567):
    pass
''', "<string>", "exec"))
pad?

# %% 76 do not
exec(compile('''def pad2(abcdefghij, klmnopqrst, uvwxyzabcd, efghijklmn, opqrstuvwx, yz=1234567):
    pass
''', "<string>", "exec"))
pad2?

# %% a class's long init signature
exec(compile('''class Settings:
    """Settings of a run."""
    def __init__(self, name, *, retries=3, timeout_seconds=10.0, verbose=False, log_file=None):
        """Keeps the settings."""
''', "<string>", "exec"))
Settings?

# %% a class's source where there is none
Settings??

# %% an instance's long call signature
exec(compile('''class Runner:
    def __repr__(self):
        return "Runner()"
    def __call__(self, command, *arguments, working_directory=None, environment=None, check=True):
        """Runs a command."""
''', "<string>", "exec"))
runner = Runner()
runner?

# %% a builtin class's init signature comes from __init__
int?

# %% a builtin's namespace
True?

# %% a bound method: no self
import threading
worker = threading.Thread()
worker.join?

# %% a bound method's source
worker.is_alive??

# %% a library class's instance: its class's file
counter = collections.Counter("abracadabra")
counter?

# %% and its class's source
users = collections.UserList(["ada", "grace"])
users??

# %% a property is not run
class described(property):
    def __repr__(self):
        return "<described>"
class Box:
    @described
    def size(self):
        "The size of the box."
        raise RuntimeError("not run")
box = Box()
box.size?

# %% a property's source
box.size??

# %% %pinfo with a ? asks for more
%pinfo ?worker.is_alive

# %% %pinfo pinfo asks for more too
%pinfo pinfo worker.is_alive

# %% %pinfo of a pattern searches
%pinfo *int*

# %% %pinfo2 of a pattern does not
%pinfo2 *int*

# %% a shell alias: its repr
ls?

# %% a cell's function: its source, which holds its docstring
def greet(name, greeting="Hello"):
    """Greets someone."""
    return "%s, %s!" % (greeting, name)
greet??

# %% its docstring, the File line left out
greet?

# %% a cell's class has no file, so no source
class Greeter:
    """Greets."""
Greeter??

# %% a cell's method
class Door:
    def open(self, wide=False):
        "Opens the door."
        return wide
door = Door()
door.open??
