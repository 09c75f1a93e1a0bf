"""run_batch and run_batch_async: order, ids, laziness, progress, stopping
a batch, the container lanes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from conftest import IMAGE, RUNTIMES, containers_of, monty_workers, server_pid, wait_until

from backyard_ls import BackendUnavailable, BadArgument, BatchProgress, Execution, run_batch, run_batch_async


def test_results_in_input_order_with_ids() -> None:
    snippets = ["def add(a, b):\n    return a + b\nadd(2, 3)", {"id": "neg", "code": "-1"}, "1 / 0", {"code": "while True:\n    pass", "timeout": 0.2}]
    rs = list(run_batch(snippets, backend="monty", timeout=10))
    assert [r.id for r in rs] == [0, "neg", 2, 3]
    assert [r.status for r in rs] == ["ok", "ok", "error", "timeout"]
    assert rs[0].value == "5" and rs[1].value == "-1"
    assert rs[2].error is not None and rs[2].error.ename == "ZeroDivisionError" and rs[2].exit_code == 1
    assert rs[3].timed_out and rs[3].exit_code == 124
    assert all(r.execution_count == 1 for r in rs)


def test_each_snippet_starts_empty() -> None:
    rs = list(run_batch(["x = 1", "x"], backend="monty"))
    assert rs[1].error is not None and rs[1].error.ename == "NameError"


def test_many_unordered_with_progress() -> None:
    n = 5000
    seen: list[BatchProgress] = []
    rs = list(run_batch((f"{i} * 2" for i in range(n)), backend="monty", ordered=False, parallel=2, on_progress=seen.append))
    assert sorted(r.id for r in rs) == list(range(n))
    assert all(r.value == str(r.id * 2) for r in rs)
    assert seen and seen[-1].done == n and seen[-1].failed == 0 and seen[-1].total is None
    assert [p.done for p in seen] == sorted(p.done for p in seen)
    with_total: list[BatchProgress] = []
    list(run_batch(["1", "1/0"], backend="monty", on_progress=with_total.append))
    assert with_total[-1].total == 2 and with_total[-1].failed == 1


def test_the_input_is_read_as_the_batch_goes() -> None:
    pulled = 0

    def gen() -> Iterator[str]:
        nonlocal pulled
        for i in range(1_000_000):
            pulled += 1
            yield str(i)

    results = run_batch(gen(), backend="monty", window=1000)
    first = next(results)
    assert first.value == "0"
    assert pulled <= 1000 + 512  # the window, and at most one chunk
    for _, r in zip(range(5000), results):
        assert r.status == "ok"
    assert pulled < 10_000
    results.close()


def test_an_abandoned_batch_stops_and_leaves_nothing_running() -> None:
    pid = server_pid()
    before = monty_workers(pid)
    for i, r in enumerate(run_batch((f"sum(range({i} % 1000))" for i in range(10_000_000)), backend="monty", parallel=2)):
        assert r.status == "ok"
        if i == 2000:
            assert monty_workers(pid) - before
            break
    # Leaving the loop dropped the iterator, which stopped the batch and
    # waited for it: nothing of it runs any more.
    assert not (monty_workers(pid) - before)


def test_closing_a_batch_waits_until_nothing_runs() -> None:
    pid = server_pid()
    before = monty_workers(pid)
    with run_batch(["1"] + ["while True:\n    pass"] * 10, backend="monty", timeout=60, parallel=2) as results:
        assert next(results).value == "1"
        assert monty_workers(pid) - before  # running the loops
    assert not (monty_workers(pid) - before)
    assert list(results) == []


def test_bad_snippets_and_arguments() -> None:
    with pytest.raises(BadArgument, match="snippet 1"):
        list(run_batch(["1", 2], backend="monty"))  # type: ignore[list-item]
    with pytest.raises(BadArgument, match="unknown keys"):
        list(run_batch([{"code": "1", "stdin": ["x"]}], backend="monty"))
    with pytest.raises(BadArgument):
        run_batch(["1"], parallel=0)
    with pytest.raises(BadArgument):
        run_batch(["1"], backend="gpu")  # type: ignore[arg-type]
    r = list(run_batch([{"code": "1", "timeout": -1}], backend="monty"))[0]
    assert r.error is not None and r.error.ename == "BatchInputError"


def test_monty_refuses_inputs_and_files() -> None:
    r = list(run_batch([{"code": "input()", "inputs": ["x"]}], backend="monty"))[0]
    assert r.error is not None and r.error.ename == "BackendUnavailable"


@pytest.mark.usefixtures("engine")
@pytest.mark.parametrize("runtime", RUNTIMES)
def test_container_batch_with_preload(runtime: str) -> None:
    pid = server_pid()
    snippets = [
        {"id": i, "code": "import numpy as np\nprint(np.arange(%d).sum())" % i} for i in range(20)
    ] + [
        {"id": "files", "code": "print(open('data/in.txt').read().upper())", "files": {"data/in.txt": "hello"}},
        {"id": "stdin", "code": "a = input()\nb = input()\nprint(int(a) + int(b))", "inputs": ["2", "3"]},
        {"id": "exit", "code": "import sys\nsys.exit(3)"},
    ]
    rs = list(run_batch(snippets, backend="container", image=IMAGE, runtime=runtime, preload=["numpy"], parallel=2, timeout=60))
    assert [r.id for r in rs] == list(range(20)) + ["files", "stdin", "exit"]
    for i, r in enumerate(rs[:20]):
        assert r.status == "ok" and r.stdout == f"{sum(range(i))}\n", r
        assert r.backend == "container" and r.runtime == runtime
    assert rs[20].stdout == "HELLO\n"
    assert rs[21].stdout == "5\n"
    assert rs[22].status == "error" and rs[22].error is not None and rs[22].error.ename == "SystemExit"
    wait_until(lambda: not containers_of(pid), "the batch's containers to be removed")


@pytest.mark.usefixtures("engine")
def test_auto_batch_sends_what_monty_lacks_to_a_container() -> None:
    rs = list(run_batch(["1 + 1", "import numpy\nnumpy.__name__"], backend="auto", image=IMAGE, runtime="runc", timeout=60))
    assert [r.backend for r in rs] == ["monty", "container"]
    assert rs[1].value == "'numpy'" and rs[1].routing is not None and rs[1].routing.rule == "module:numpy"


def test_a_snippet_is_a_first_cell_with_its_magics() -> None:
    # As Sandbox(backend="monty").run(code) on a new sandbox: Monty's kernel
    # hosts %time and automagic's %pwd, and says what it cannot run.
    rs = list(run_batch(["%time 1 + 1", "pwd", "!echo hi"], backend="monty"))
    assert rs[0].status == "ok" and rs[0].value == "2" and "Wall time:" in rs[0].stdout, rs[0]
    assert rs[1].status == "ok" and rs[1].value == "'/'", rs[1]
    assert rs[2].error is not None and rs[2].error.ename == "UsageError" and "!echo needs IPython's shell" in rs[2].error.evalue
    assert all(r.execution_count == 1 for r in rs)


@pytest.mark.usefixtures("engine")
@pytest.mark.parametrize("backend", ["container", "auto"])
def test_a_snippet_is_a_first_cell_with_ipythons_shell(backend: str) -> None:
    rs = list(run_batch(["%time 1 + 1", "x = !echo hi\nx", "%%bash\necho hi"], backend=backend, image=IMAGE, runtime="runc", timeout=60))
    assert [r.status for r in rs] == ["ok", "ok", "ok"], rs
    assert rs[0].value == "2" and "Wall time:" in rs[0].stdout
    assert rs[1].value == "['hi']" and rs[1].backend == "container"
    assert rs[2].stdout == "hi\n"


@pytest.mark.usefixtures("engine")
def test_a_container_batch_that_cannot_start_raises() -> None:
    with pytest.raises(BackendUnavailable):
        list(run_batch(["1"], backend="container", image="backyard-no-such-image:never", runtime="runc"))


def test_async_batch() -> None:
    async def gen() -> AsyncIterator[str]:
        for i in range(300):
            yield f"{i} + 1"
            if i % 50 == 0:
                await asyncio.sleep(0)

    async def main() -> tuple[list[Execution], list[Execution], int]:
        ordered = [r async for r in run_batch_async([f"{i}" for i in range(1000)], backend="monty")]
        unordered = [r async for r in run_batch_async(gen(), backend="monty", ordered=False)]
        pid = server_pid_async()
        before = monty_workers(pid)
        async with run_batch_async((str(i) for i in range(10_000_000)), backend="monty") as results:
            async for r in results:
                if r.id == 100:
                    break
        left = len(monty_workers(pid) - before)
        return ordered, unordered, left

    def server_pid_async() -> int:
        from backyard_ls import _async

        loop = asyncio.get_running_loop()
        fut = next(iter(_async._conns[loop].values()))
        return fut.result()._proc.pid

    ordered, unordered, left = asyncio.run(main())
    assert [r.id for r in ordered] == list(range(1000)) and ordered[999].value == "999"
    assert sorted(int(r.value or 0) for r in unordered) == list(range(1, 301))
    assert left == 0


def test_room_comes_in_half_chunks() -> None:
    from backyard_ls.batch import _Feed

    f = _Feed(8192, None, None)
    assert f.room() == 8192
    f.sent = 8192
    for done, room in ((1, 0), (255, 0), (256, 256), (8192, 8192)):
        f.done = done
        assert f.room() == room, done
    one = _Feed(1, None, None)
    assert one.room() == 1
    one.sent = 1
    assert one.room() == 0
    one.done = 1
    assert one.room() == 1
    one.exhausted = True
    assert one.room() == 0
