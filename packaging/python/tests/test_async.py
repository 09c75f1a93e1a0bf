"""AsyncSandbox: the same surface for asyncio, many sessions at once over
the event loop's one server."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from conftest import IMAGE

from backyard_ls import AsyncSandbox, BadArgument, SandboxClosed, _async


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_basics() -> None:
    async def main() -> None:
        async with AsyncSandbox("monty", timeout=20) as sb:
            assert (await sb.run("x = 20")).status == "ok"
            r = await sb.run("print('hi')\nx + y", y=22)
            assert r.value == "42" and r.stdout == "hi\n" and r.execution_count == 2
            r = await sb.run("1/0")
            assert r.error is not None and r.error.ename == "ZeroDivisionError"
            assert [v.name for v in await sb.variables()] == ["x", "y"]
            assert (await sb.info())["executionCount"] == 3
            await sb.reset()
            assert await sb.variables() == []
        with pytest.raises(SandboxClosed):
            await sb.run("1")
        sb2 = await AsyncSandbox("monty")
        assert (await sb2.run("2")).value == "2"
        await sb2.close()
        lazy = AsyncSandbox("monty")
        assert (await lazy.run("3")).value == "3"  # opens on first use
        await lazy.close()
        with pytest.raises(BadArgument):
            AsyncSandbox(timeout="soon")  # type: ignore[arg-type]

    run(main())


def test_without_a_workspace_the_code_gets_a_folder_of_its_own() -> None:
    async def main() -> Any:
        async with AsyncSandbox("auto", timeout=20) as sb:
            cwd = (await sb.run("import os\nos.getcwd()")).result
            assert isinstance(cwd, str) and os.path.isdir(cwd) and os.listdir(cwd) == []
            r = await sb.run("open('note.txt', 'w').write('kept')\nopen(os.getcwd() + '/note.txt').read()")
            assert r.value == "'kept'"
            return cwd

    assert not os.path.exists(run(main()))  # removed on close


def test_two_hundred_concurrent_sessions() -> None:
    async def session(i: int) -> tuple[str | None, str | None, str]:
        async with AsyncSandbox("monty", timeout=60) as sb:
            await sb.run(f"mine = {i}")
            await asyncio.sleep(0)
            r = await sb.run("mine * 2")
            r2 = await sb.run("total = sum(range(mine))\ntotal")
            return r.value, r2.value, sb.id

    async def main() -> list[tuple[str | None, str | None, str]]:
        out = await asyncio.gather(*(session(i) for i in range(200)))
        assert len(_async._conns[asyncio.get_running_loop()]) == 1  # one server for all
        return out

    out = run(main())
    assert [(a, b) for a, b, _ in out] == [(str(i * 2), str(sum(range(i)))) for i in range(200)]
    assert len({sid for _, _, sid in out}) == 200


def test_host_functions_and_streaming() -> None:
    async def fetch(key: str) -> dict[str, Any]:
        await asyncio.sleep(0.01)
        return {"key": key, "n": 3}

    def fail() -> None:
        raise PermissionError("not allowed")

    async def main() -> None:
        chunks: list[str] = []
        async with AsyncSandbox("monty", functions=[fetch, fail], on_stdout=chunks.append) as sb:
            r = await sb.run("d = fetch('a')\nprint(d['key'])\nd['n'] * 2")
            assert r.value == "6" and chunks == ["a\n"]
            r = await sb.run("fail()")
            assert r.error is not None and r.error.ename == "PermissionError" and r.error.evalue == "not allowed"

    run(main())


def test_interrupt_and_cancel() -> None:
    async def main() -> None:
        async with AsyncSandbox("monty", timeout=60) as sb:
            await sb.run("n = 0")
            started = asyncio.Event()
            task = asyncio.ensure_future(sb.run("print('go')\nwhile True:\n    n += 1", on_stdout=lambda _: started.set()))
            await started.wait()
            assert await sb.interrupt() is True
            r = await task
            assert r.status == "interrupted"
            # Cancelling the awaiting task stops the cell too.
            started.clear()
            task = asyncio.ensure_future(sb.run("print('go')\nwhile True:\n    n += 1", on_stdout=lambda _: started.set()))
            await started.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert (await sb.run("n")).value == "0"

    run(main())


@pytest.mark.usefixtures("engine")
def test_container_session() -> None:
    async def main() -> None:
        async with AsyncSandbox("container", image=IMAGE, runtime="runc", timeout=60) as sb:
            r = await sb.run("import numpy as np\nint(np.ones(4).sum())")
            assert r.value == "4" and r.backend == "container" and r.runtime == "runc"

    run(main())
