"""Sandbox on the container backend (the test image, runc and runsc) and
in auto mode: full CPython, files, packages, routing."""

from __future__ import annotations

import os
import random
import subprocess
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import IMAGE, RUNTIMES, containers_of, own_folder, server_pid, wait_until

from backyard_ls import BackendUnavailable, Progress, Sandbox

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture(params=RUNTIMES)
def runtime(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_container_sandbox(runtime: str, workspace: Path) -> None:
    with Sandbox("container", image=IMAGE, runtime=runtime, workspace=workspace, env={"GREETING": "hi"}, timeout=60) as s:
        r = s.run("import sys, os\nprint(os.environ['GREETING'])\nsys.version_info[:2]")
        assert r.status == "ok", r.error
        assert r.backend == "container" and r.runtime == runtime and r.stdout == "hi\n"
        assert r.value == "(3, 11)"
        r = s.run("import numpy as np\nnp.arange(10).sum()")
        assert r.value == "np.int64(45)" or r.value == "45"
        # The workspace is read-only: writes stay in the kernel.
        r = s.run("rows = open('data.csv').read().splitlines()\nopen('out.txt', 'w').write(str(len(rows)))\nrows")
        assert r.value == "['a,b', '1,2']"
        assert [(f.path.endswith("out.txt"), f.state) for f in r.files] == [(True, "created")]
        assert not (workspace / "out.txt").exists()
        files = s.files()
        assert [(f.path.endswith("out.txt"), f.size, f.state) for f in files] == [(True, 1, "created")]
        assert s.save_files() == [files[0].path]
        assert (workspace / "out.txt").read_text() == "2"
        r = s.run("class H:\n    def _repr_html_(self): return '<b>hi</b>'\n    def __repr__(self): return 'H()'\nH()")
        assert r.value == "H()" and r.mime == {"text/html": "<b>hi</b>", "text/plain": "H()"}
        r = s.run("class Odd(Exception): pass\ne = Odd('x')\ne.add_note('a note')\nraise ExceptionGroup('g', [e])")
        g = r.error
        assert g is not None and g.ename == "ExceptionGroup" and len(g.exceptions) == 1
        assert g.exceptions[0].ename == "Odd" and g.exceptions[0].notes == ("a note",)
        assert "| Odd: x\n" in g.traceback and "+---------------- 1 ----------------" in g.traceback
        assert s.info()["runtime"] == runtime


def test_without_a_workspace_a_container_gets_a_folder_of_its_own(runtime: str) -> None:
    with Sandbox("container", image=IMAGE, runtime=runtime, timeout=60) as s:
        cwd = own_folder(s)
        assert s.run("1").runtime == runtime
    assert not os.path.exists(cwd)


def test_auto_keeps_its_folder_when_it_moves_to_a_container() -> None:
    with Sandbox("auto", image=IMAGE, runtime="runc", timeout=60) as s:
        cwd = own_folder(s)
        r = s.run("import numpy\nos.getcwd(), open('note.txt').read()")
        assert r.backend == "container" and r.result == (cwd, "kept"), r
    assert not os.path.exists(cwd)


def test_auto_raises_when_the_container_a_cell_needs_cannot_start() -> None:
    with Sandbox("auto", image="backyard-no-such-image:never", runtime="runc", timeout=60) as s:
        assert s.run("x = 20").status == "ok"
        with pytest.raises(BackendUnavailable, match="imports numpy"):
            s.run("import numpy\nx += 1")
        r = s.run("x + 1")  # still on Monty, nothing of the refused cell ran
        assert r.value == "21" and r.backend == "monty"


def test_a_chained_exception_comes_whole() -> None:
    with Sandbox("container", image=IMAGE, runtime="runc", timeout=60) as s:
        r = s.run("try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    raise ValueError('bad') from e")
        e = r.error
        assert e is not None and e.ename == "ValueError"
        assert e.cause is not None and e.cause.ename == "ZeroDivisionError" and e.cause.frames[0].line == 2
        assert e.frames[0].line == 4 and e.frames[0].col == 4 and e.frames[0].end_col == 34  # CPython's span: the statement
        tb = e.traceback
        assert tb.startswith('Traceback (most recent call last):\n  File "<cell>", line 2, in <module>\n    1 / 0\nZeroDivisionError: division by zero\n')
        assert "\nThe above exception was the direct cause of the following exception:\n\n" in tb
        assert tb.endswith('  File "<cell>", line 4, in <module>\n    raise ValueError(\'bad\') from e\nValueError: bad\n')


def test_host_functions_in_a_container() -> None:
    def double(x: int) -> int:
        return x * 2

    def boom() -> None:
        raise KeyError("missing")

    with Sandbox("container", image=IMAGE, runtime="runc", functions=[double, boom], timeout=60) as s:
        assert s.run("double(21)").value == "42"
        r = s.run("boom()")
        assert r.error is not None and r.error.ename == "KeyError"


def test_interrupt_in_a_container() -> None:
    import threading

    with Sandbox("container", image=IMAGE, runtime="runc", timeout=60) as s:
        s.run("n = 0")
        started = threading.Event()
        t = threading.Thread(target=lambda: (started.wait(60), s.interrupt()))
        t.start()
        r = s.run("import time\nprint('go', flush=True)\nwhile True:\n    n += 1\n    time.sleep(0.001)", on_stdout=lambda _: started.set())
        t.join()
        assert r.status == "interrupted"
        assert s.run("1 + 1").value == "2"


def test_auto_moves_to_the_container() -> None:
    with Sandbox("auto", image=IMAGE, runtime="runc", timeout=60) as s:
        assert s.run("x = 20").backend == "monty"
        r = s.run("import numpy\nint(numpy.int64(x) + 1)")
        assert r.status == "ok" and r.value == "21" and r.backend == "container"
        assert r.routing is not None and r.routing.rule == "module:numpy" and r.routing.moved
        assert s.run("x + 1").backend == "container"
        s.reset()
        assert s.run("1").backend == "monty"


def _wheel(folder: Path, name: str) -> None:
    dist = f"{name}-1.0.dist-info"
    files = {
        f"{name}/__init__.py": "ANSWER = 42\n",
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: backyard-ls-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    with zipfile.ZipFile(folder / f"{name}-1.0-py3-none-any.whl", "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
        z.writestr(f"{dist}/RECORD", "".join(f"{p},,\n" for p in files) + f"{dist}/RECORD,,\n")
    folder.chmod(0o755)


@pytest.fixture
def isolated_image() -> Iterator[str]:
    img = f"backyard-python:pytest-{random.getrandbits(32)}"
    subprocess.run(["docker", "tag", IMAGE, img], check=True)
    yield img
    subprocess.run(["docker", "rmi", img], capture_output=True)
    vols = subprocess.run(["docker", "volume", "ls", "-q", "--filter", f"label=dev.backyard-ls.packages={img}"],
                          capture_output=True, text=True).stdout.split()
    for v in vols:
        subprocess.run(["docker", "volume", "rm", "-f", v], capture_output=True)


def test_install(isolated_image: str, tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "byanswer")
    progress: list[Progress] = []
    with Sandbox("container", image=isolated_image, runtime="runc", find_links=wheels, timeout=120, on_progress=progress.append) as s:
        assert s.run("import byanswer").error is not None
        assert s.install(["byanswer"]) == ["byanswer"]
        # The install was reported as it went, to the thread that asked.
        assert [(p.title, p.message, p.done) for p in progress] == [("Installing packages", "byanswer", False), ("Installing packages", "", True)]
        r = s.run("import byanswer\nbyanswer.ANSWER")
        assert r.value == "42", r.error


def test_auto_install(isolated_image: str, tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "byauto")
    with Sandbox("container", image=isolated_image, runtime="runc", find_links=wheels, auto_install=True, timeout=120) as s:
        r = s.run("import byauto\nbyauto.ANSWER")
        assert r.value == "42", r.error


def test_an_image_that_cannot_be_had_is_an_unusable_backend() -> None:
    with Sandbox("container", image="backyard-no-such-image:never", runtime="runc", timeout=60) as s, pytest.raises(BackendUnavailable):
        s.run("1")


def test_closing_removes_the_container() -> None:
    pid = server_pid()
    s = Sandbox("container", image=IMAGE, runtime="runc", timeout=60)
    assert s.run("1").status == "ok"
    mine: Any = set(containers_of(pid))
    assert mine
    s.close()
    wait_until(lambda: not (set(containers_of(pid)) & mine), "the closed sandbox's container to be removed")
