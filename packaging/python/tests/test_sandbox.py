"""Sandbox on Monty: state, results, errors, host functions, streaming,
interrupts, limits and the exceptions of bad requests."""

from __future__ import annotations

import os
import stat
import sysconfig
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import binary, monty_workers, own_folder, server_pid, wait_until

import backyard_ls
from backyard_ls import (
    BackendUnavailable,
    BadArgument,
    BinaryNotFound,
    Execution,
    RequestTooLarge,
    Sandbox,
    SandboxClosed,
    ServerDied,
)


@pytest.fixture
def sb() -> Any:
    with Sandbox("monty", timeout=20) as s:
        yield s


def test_state_is_kept_between_runs(sb: Sandbox) -> None:
    r = sb.run("prices = [3.5, 2.25, 4.0]")
    assert r.status == "ok" and r.value is None and r.execution_count == 1
    r = sb.run("print('items:', len(prices))\nsum(prices)")
    assert r.stdout == "items: 3\n"
    assert r.value == "9.75" and r.result == 9.75
    assert r.execution_count == 2
    assert r.backend == "monty" and r.sandbox_type == "monty" and r.runtime == "monty"
    assert r.duration_ms > 0 and r.duration_sec == r.duration_ms / 1000
    assert r.success and not r.failed and r.exit_code == 0
    assert not r.timed_out and not r.memory_limit_hit
    assert r.error is None and r.notes == [] and r.files == [] and r.routing is None
    assert isinstance(r, Execution) and "9.75" in repr(r)


def test_value_text_and_literal(sb: Sandbox) -> None:
    assert sb.run("{'a': [1, 2.5, None]}").result == {"a": [1, 2.5, None]}
    assert sb.run("'text'").value == "'text'"
    r = sb.run("def f(): pass\nf")
    assert r.value is not None and r.value.startswith("<function")
    assert r.result == r.value  # not a literal: the text


def test_displays(sb: Sandbox) -> None:
    r = sb.run("print('a')\ndisplay(1, 'two')")
    assert r.stdout == "a\n"
    assert [d["data"] for d in r.displays] == [{"text/plain": "1"}, {"text/plain": "'two'"}]
    assert sb.run("1").displays == []


def test_an_error_is_a_result(sb: Sandbox) -> None:
    sb.run("def div(a, b):\n    return a / b")
    r = sb.run("x = 1\ndiv(x, 0)")
    assert r.status == "error" and not r.success and r.exit_code == 1
    assert r.error is not None
    assert r.error.ename == "ZeroDivisionError" and r.error.evalue == "division by zero"
    assert [f.name for f in r.error.frames] == ["<module>", "div"]
    assert r.error.frames[0].line == 2 and r.error.frames[0].text == "div(x, 0)"
    assert r.error.frames[1].line is None  # defined in an earlier run
    tb = r.error.traceback
    assert tb.startswith("Traceback (most recent call last):\n")
    assert '  File "<cell>", line 2, in <module>\n    div(x, 0)\n' in tb
    assert tb.endswith("ZeroDivisionError: division by zero\n")
    assert str(r.error) == "ZeroDivisionError: division by zero"
    assert sb.run("x").value == "1"  # names bound before the raise stay


def test_syntax_error_is_a_result(sb: Sandbox) -> None:
    r = sb.run("def (")
    assert r.status == "error" and r.error is not None and r.error.ename == "SyntaxError"


def test_named_inputs(sb: Sandbox) -> None:
    assert sb.run("x * 2", x=21).value == "42"
    r = sb.run("[type(v).__name__ for v in (a, b, c, d, e)]", inputs={"a": 1, "b": 2.0, "c": "s", "d": [1, {"k": None}], "e": True})
    assert r.value == "['int', 'float', 'str', 'list', 'bool']"
    assert sb.run("a + 2**70", a=2**70).value == str(2**71)
    assert sb.run("x").value == "21"  # inputs persist
    with pytest.raises(BadArgument):
        sb.run("1", x=object())
    with pytest.raises(BadArgument):
        sb.run("1", x=float("nan"))


def test_timeout(sb: Sandbox) -> None:
    sb.run("n = 5")
    r = sb.run("while True:\n    n += 1", timeout=0.3)
    assert r.status == "timeout" and r.timed_out and r.exit_code == 124
    assert r.error is not None and r.error.ename == "TimeoutError"
    assert sb.run("n").value == "5"  # the namespace as it was before the cell


def test_memory_limit() -> None:
    with Sandbox("monty", memory_mb=32) as s:
        r = s.run("x = 'a' * (64 * 1024 * 1024)")
        assert r.memory_limit_hit and r.exit_code == 137 and r.status == "error"
        assert r.error is not None and r.error.ename == "MemoryError"


def test_env_and_files_on_monty(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "in.txt").write_text("data")
    with Sandbox("monty", workspace=ws, env={"MODE": "test"}) as s:
        r = s.run("import os\nfrom pathlib import Path\nPath('out.txt').write_text(Path('in.txt').read_text().upper())\nos.getenv('MODE')")
        assert r.value == "'test'", r.error
        assert [(os.path.basename(f.path), f.state) for f in r.files] == [("out.txt", "created")]
        assert not (ws / "out.txt").exists()  # kept in the sandbox
        assert [(os.path.basename(f.path), f.size) for f in s.files()] == [("out.txt", 4)]
        assert [os.path.basename(x) for x in s.save_files()] == ["out.txt"]
        assert (ws / "out.txt").read_text() == "DATA"
    with Sandbox("monty", workspace=ws, files_write="workspace") as s:
        s.run("from pathlib import Path\nPath('direct.txt').write_text('x')")
        assert (ws / "direct.txt").read_text() == "x"


def test_reset_variables_info(sb: Sandbox) -> None:
    sb.run("a = 1\nb = 'two'")
    vs = {v.name: v for v in sb.variables()}
    assert vs["a"].type == "int" and vs["a"].repr == "1" and vs["b"].repr == "'two'"
    info = sb.info()
    assert info["backend"] == "monty" and info["executionCount"] == 1
    sb.reset()
    assert sb.variables() == []
    assert sb.info()["executionCount"] == 0
    assert sb.run("a").error is not None


def test_host_functions(sb: Sandbox) -> None:
    calls: list[Any] = []

    def lookup(name: str, *, default: Any = None) -> Any:
        calls.append((name, default, threading.current_thread().name))
        return {"alice": {"age": 31, "tags": ["x"]}}.get(name, default)

    def fail(kind: str) -> None:
        if kind == "value":
            raise ValueError("no such user")
        raise LookupError("custom type")

    async def later(x: int) -> int:
        return x + 1

    def bad() -> object:
        return object()

    with Sandbox("monty", functions={"lookup": lookup, "fail": fail, "later": later, "bad": bad}) as s:
        r = s.run("u = lookup('alice')\nu['age'] + 1")
        assert r.value == "32" and calls == [("alice", None, threading.current_thread().name)]
        assert s.run("lookup('bob', default=7)").value == "7"
        r = s.run("try:\n    fail('value')\nexcept ValueError as e:\n    msg = str(e)\nmsg")
        assert r.value == "'no such user'"
        r = s.run("fail('lookup')")
        assert r.error is not None and r.error.ename == "LookupError" and r.error.evalue == "custom type"
        assert s.run("later(41)").value == "42"
        r = s.run("bad()")
        assert r.error is not None and r.error.ename == "TypeError" and "JSON" in r.error.evalue
    with Sandbox("monty", functions=[lookup]) as s:
        assert s.run("lookup('alice')['tags']").value == "['x']"


def test_streaming_callbacks(sb: Sandbox) -> None:
    seen: list[tuple[str, str, bool]] = []
    done = threading.Event()

    def out(text: str) -> None:
        seen.append(("out", text, done.is_set()))

    def err(text: str) -> None:
        seen.append(("err", text, done.is_set()))

    r = sb.run("import sys\nprint('one')\nprint('two', file=sys.stderr)\nprint('three')", on_stdout=out, on_stderr=err)
    done.set()
    assert r.stdout == "one\nthree\n" and r.stderr == "two\n"
    assert "".join(t for k, t, _ in seen if k == "out") == "one\nthree\n"
    assert "".join(t for k, t, _ in seen if k == "err") == "two\n"
    assert not any(late for _, _, late in seen)


def test_streaming_arrives_while_the_cell_runs(sb: Sandbox) -> None:
    # The cell waits (on a host function) until the test has seen its
    # first line: output that came only with the result would deadlock.
    seen = threading.Event()

    def wait_seen() -> bool:
        return seen.wait(60)

    with Sandbox("monty", functions={"wait_seen": wait_seen}, on_stdout=lambda t: seen.set()) as s:
        r = s.run("print('first')\nok = wait_seen()\nprint('second')\nok")
        assert r.value == "True" and r.stdout == "first\nsecond\n"


def test_interrupt_from_another_thread(sb: Sandbox) -> None:
    started = threading.Event()
    answers: list[bool] = []

    def stopper() -> None:
        started.wait(60)
        answers.append(sb.interrupt())

    sb.run("n = 0")
    t = threading.Thread(target=stopper)
    t.start()
    r = sb.run("print('go', flush=True)\nwhile True:\n    n += 1", on_stdout=lambda _: started.set())
    t.join()
    assert answers == [True]
    assert r.status == "interrupted" and r.error is not None and r.error.ename == "KeyboardInterrupt"
    assert r.exit_code == 1
    assert sb.run("n").value == "0"
    assert sb.interrupt() is False  # nothing running


def test_threads_share_one_server() -> None:
    results: dict[int, str | None] = {}

    def work(i: int) -> None:
        with Sandbox("monty") as s:
            s.run(f"v = {i}")
            results[i] = s.run("v * 10").value

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: str(i * 10) for i in range(8)}


def test_close(sb: Sandbox) -> None:
    s = Sandbox("monty")
    s.run("1")
    before = monty_workers(server_pid())
    s.close()
    s.close()  # twice is fine
    with pytest.raises(SandboxClosed):
        s.run("1")
    wait_until(lambda: len(monty_workers(server_pid()) & before) < len(before), "the closed sandbox's worker to exit")


def test_bad_arguments() -> None:
    with pytest.raises(BadArgument, match="timeout"):
        Sandbox(timeout=-1)
    with pytest.raises(BadArgument, match="backend"):
        Sandbox("jupyter")  # type: ignore[arg-type]
    with pytest.raises(BadArgument):
        Sandbox(functions={"not an identifier": print})
    with pytest.raises(BadArgument):
        Sandbox(functions={"f": 3})  # type: ignore[dict-item]
    with pytest.raises(BadArgument, match="workspace"):
        Sandbox(workspace="/no/such/folder")
    with pytest.raises(BadArgument):
        Sandbox(env={"A": 1})  # type: ignore[dict-item]
    with Sandbox("monty") as s, pytest.raises(BadArgument, match="monty backend"):
        s.install("requests")
    with Sandbox("auto") as s, pytest.raises(BadArgument, match="requirement"):
        s.install("--index-url=http://evil")


@pytest.mark.parametrize("backend", ["monty", "auto"])
def test_without_a_workspace_the_code_gets_a_folder_of_its_own(backend: str) -> None:
    with Sandbox(backend) as s, Sandbox(backend) as other:  # type: ignore[arg-type]
        cwd = own_folder(s)
        assert own_folder(other) != cwd
        assert os.path.isdir(cwd)
    assert not os.path.exists(cwd)  # removed on close


def test_a_folder_of_its_own_written_to_is_removed_on_close() -> None:
    s = Sandbox("monty", files_write="workspace")
    cwd = s.run("import os\nos.makedirs('sub')\nopen('sub/x.txt', 'w').write('x')\nos.getcwd()").result
    assert isinstance(cwd, str) and Path(cwd, "sub", "x.txt").read_text() == "x"
    s.close()
    assert not os.path.exists(cwd)


def test_unusable_backend(tmp_path: Path) -> None:
    # A worker that is not one: the backend cannot run.
    fake = tmp_path / "monty"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    with Sandbox("monty", monty=str(fake)) as s, pytest.raises(BackendUnavailable):
        s.run("1")


def test_the_binary_is_the_wheels_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(backyard_ls.ENV_BINARY, raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")  # not found through PATH
    path = Path(backyard_ls.find_binary())
    assert path.name == "backyard-ls" and os.access(path, os.X_OK)
    if "site-packages" in backyard_ls.__file__:  # the installed wheel, as make test-python runs it
        assert path.parent == Path(sysconfig.get_path("scripts")).resolve()


def test_binary_not_found(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(BinaryNotFound):
        Sandbox(binary="/no/such/backyard-ls")
    monkeypatch.setenv(backyard_ls.ENV_BINARY, "/no/such/backyard-ls")
    with pytest.raises(BinaryNotFound, match="BACKYARD_LS_BIN"):
        backyard_ls.find_binary()


def test_a_dead_server_raises_and_a_new_one_starts(tmp_path: Path) -> None:
    # A server of its own (another binary path), so the others' go on.
    link = tmp_path / "backyard-ls"
    link.symlink_to(binary())
    s = Sandbox("monty", binary=str(link))
    cwd = s.run("import os\nos.getcwd()").result
    assert isinstance(cwd, str)
    pid = backyard_ls._client.connection(str(link)).pid
    os.kill(pid, 9)
    with pytest.raises(ServerDied):
        s.run("2")
    with Sandbox("monty", binary=str(link)) as s2:
        assert s2.run("3").value == "3"
    assert backyard_ls._client.connection(str(link)).pid != pid
    wait_until(lambda: not os.path.exists(cwd), "the next server to remove the killed one's sandbox folder")


def test_a_request_over_the_limit_is_refused_and_the_sandbox_lives(tmp_path: Path) -> None:
    wrapper = tmp_path / "backyard-ls"
    wrapper.write_text(f'#!/bin/sh\nexec "{binary()}" "$@" --max-request-bytes 100000\n')
    wrapper.chmod(0o755)
    with Sandbox("monty", binary=str(wrapper)) as s:
        s.run("kept = 7")
        with pytest.raises(RequestTooLarge):
            s.run("x = '" + "a" * 200_000 + "'")
        with pytest.raises(RequestTooLarge):
            s.run("y", y="b" * 200_000)
        assert s.run("kept").value == "7"
        assert s.run("len(z)", z="c" * 50_000).value == "50000"


def test_garbage_collected_sandbox_is_closed() -> None:
    pid = server_pid()
    s = Sandbox("monty")
    s.run("1")
    before = monty_workers(pid)
    del s
    wait_until(lambda: len(monty_workers(pid) & before) < len(before), "the collected sandbox's worker to exit")
