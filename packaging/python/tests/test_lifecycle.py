"""The server's life: it goes with the program, however the program ends,
and leaves no worker or container behind; the original backyard's README
example runs with only its import changed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import IMAGE, alive, containers_of, descendants, server_pid, wait_until

from backyard_ls import Sandbox

# The README of backyard 0.3.0 ("Python API"), with `from backyard import
# Sandbox` changed to backyard_ls.
SEED_README = '''\
from backyard_ls import Sandbox

sandbox = Sandbox()

code = """
print("hello from the sandbox! 🏖🏰")
"""

result = sandbox.run(code)

print(result.stdout)
'''


def test_the_original_backyard_readme_example(tmp_path: Path) -> None:
    script = tmp_path / "readme.py"
    script.write_text(SEED_README, encoding="utf-8")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "hello from the sandbox! 🏖🏰\n\n"
    assert r.stderr == ""


CHILD = textwrap.dedent('''\
    import sys, time
    from backyard_ls import Sandbox, run_batch, _client
    monty = Sandbox("monty")
    monty.run("x = 1")
    containers = []
    for runtime in sys.argv[2:]:
        c = Sandbox("container", image=sys.argv[1], runtime=runtime, timeout=120)
        assert c.run("y = 1").status == "ok"
        containers.append(c)
    batch = run_batch((f"sum(range({i % 100}))" for i in range(10**9)), backend="monty")
    next(batch)
    folders = [s.run("import os\\nos.getcwd()").result for s in [monty, *containers]]
    print(_client.connection().pid, *folders, flush=True)
    time.sleep(600)
''')


@pytest.mark.parametrize("runtimes", [[], ["runc", "runsc"]], ids=["monty", "containers"])
def test_a_killed_program_leaves_nothing_behind(tmp_path: Path, runtimes: list[str], request: pytest.FixtureRequest) -> None:
    if runtimes:
        request.getfixturevalue("engine")
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    child = subprocess.Popen([sys.executable, str(script), IMAGE, *runtimes], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        line = child.stdout.readline().split()
        assert line and line[0].isdigit(), line
        server, folders = int(line[0]), line[1:]
        assert len(folders) == 1 + len(runtimes) and all(os.path.isdir(f) for f in folders), line
        procs = descendants(server)
        assert len(procs) >= 3  # the sandbox's worker, the batch's workers
        if runtimes:
            assert len(containers_of(server)) == len(runtimes)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    wait_until(lambda: not alive(server), "the server to exit")
    wait_until(lambda: not any(alive(p) for p in procs), "the workers to exit")
    wait_until(lambda: not any(os.path.exists(f) for f in folders), "the sandboxes' folders to be removed")
    if runtimes:
        wait_until(lambda: not containers_of(server), "the containers to be removed")


def test_a_program_that_exits_takes_its_server_along(tmp_path: Path) -> None:
    script = tmp_path / "exits.py"
    script.write_text("from backyard_ls import Sandbox, _client\ns = Sandbox('monty')\ns.run('1')\nprint(_client.connection().pid)\n")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert not alive(int(r.stdout))  # atexit waited for it


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_gets_its_own_server() -> None:
    with Sandbox("monty") as parent:
        parent.run("x = 1")
        mine = server_pid()
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            code = 1
            try:
                with Sandbox("monty") as s:
                    ok = s.run("2 + 2").value == "4" and server_pid() != mine
                try:
                    parent.run("x")
                    ok = False
                except Exception:  # noqa: BLE001 - the parent's sandbox is not the child's
                    pass
                os.write(w, b"ok" if ok else b"no")
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        got = os.read(r, 2)
        os.waitpid(pid, 0)
        assert got == b"ok"
        assert parent.run("x").value == "1"
        assert server_pid() == mine


FORKS = textwrap.dedent('''\
    import os, time
    from backyard_ls import Sandbox, _client
    s = Sandbox("monty")
    s.run("x = 1")
    if os.fork() == 0:
        # A child that keeps the server's pipes open and outlives its parent.
        time.sleep(600)
        os._exit(0)
    print(_client.connection().pid, flush=True)
    time.sleep(600)
''')


def test_the_server_watches_its_parent_when_the_pipes_stay_open(tmp_path: Path) -> None:
    script = tmp_path / "forks.py"
    script.write_text(FORKS)
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert child.stdout is not None
        server = int(child.stdout.readline())
        procs = descendants(server)
        child.send_signal(signal.SIGKILL)
        child.wait()
        wait_until(lambda: not alive(server), "the server to exit though its stdin is still open")
        wait_until(lambda: not any(alive(p) for p in procs), "the worker to exit")
    finally:
        os.killpg(child.pid, signal.SIGKILL)  # the grandchild
