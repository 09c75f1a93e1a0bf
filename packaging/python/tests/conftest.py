"""Shared helpers of the backyard_ls tests: they run against the installed
wheel (its binary, the real Monty worker, the real container engine)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import backyard_ls
from backyard_ls import _client

IMAGE = os.environ.get("BACKYARD_TEST_IMAGE", "backyard-python:test")
RUNTIMES = ["runc", "runsc"]


def wait_until(cond: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    """Polls cond until it holds; fails after timeout (generous: the machine
    may be busy; the test waits for the event, not for a time)."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError, IndexError):  # a process that ends while read
        return False


def descendants(pid: int) -> set[int]:
    """Every live process under pid."""
    parents: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if fields[0] not in ("Z", "X"):
                    parents[int(d)] = int(fields[1])
            except (OSError, IndexError):
                pass
    out: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        for c, pp in parents.items():
            if pp == p and c not in out:
                out.add(c)
                todo.append(c)
    return out


def command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def monty_workers(server_pid: int) -> set[int]:
    return {p for p in descendants(server_pid) if "monty" in os.path.basename(command(p).split(" ")[0])}


def containers_of(server_pid: int) -> list[str]:
    """The kernel containers the server process owns (running or not)."""
    out = subprocess.run(
        ["docker", "ps", "-a", "-q", "--filter", f"label=dev.backyard-ls.pid={server_pid}"],
        capture_output=True, text=True, check=True,
    )
    return out.stdout.split()


def server_pid() -> int:
    """The pid of the process serving this program's sandboxes."""
    return _client.connection().pid


@pytest.fixture(scope="session")
def engine() -> None:
    """The container engine with the test image; the container tests fail
    (not skip) without it, unless BACKYARD_NO_CONTAINER is set."""
    if os.environ.get("BACKYARD_NO_CONTAINER"):
        pytest.skip("BACKYARD_NO_CONTAINER is set")
    if shutil.which("docker") is None:
        pytest.fail("no docker: run `make test-deps`")
    r = subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True)
    if r.returncode != 0:
        pytest.fail(f"no image {IMAGE}: run scripts/build-test-image.sh")


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "data.csv").write_text("a,b\n1,2\n")
    yield ws


def own_folder(s: backyard_ls.Sandbox) -> str:
    """Checks that a sandbox opened without a workspace works in an empty
    folder of its own (neither /, nor the home folder or one above it, nor
    this program's), where a file it writes can be read back and stays in
    the sandbox; returns the folder."""
    r = s.run("import os\nos.getcwd()")
    assert r.status == "ok", r.error
    cwd = r.result
    assert isinstance(cwd, str) and os.path.isabs(cwd), r
    home = os.path.realpath(os.path.expanduser("~"))
    assert cwd != "/" and cwd != home and not home.startswith(cwd.rstrip("/") + "/"), cwd
    assert cwd != os.getcwd()
    assert os.path.isdir(cwd) and os.listdir(cwd) == []
    r = s.run("open('note.txt', 'w').write('kept')\nsorted(os.listdir('.')), open(os.path.join(os.getcwd(), 'note.txt')).read()")
    assert r.result == (["note.txt"], "kept"), r
    assert os.listdir(cwd) == []  # files_write "sandbox": the host folder stays empty
    return cwd


def binary() -> str:
    return backyard_ls.find_binary()
