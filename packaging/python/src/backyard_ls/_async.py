"""AsyncSandbox, and the connection to a ``backyard-ls api`` process for an
event loop: one process per loop (and binary) serves all its sandboxes and
batches; one reader task hands each answer to the future waiting for it."""

from __future__ import annotations

import asyncio
import inspect
import itertools
import os
import sys
import warnings
import weakref
from collections.abc import Callable, Generator, Iterable, Mapping
from types import TracebackType
from typing import Any

from . import _protocol as p
from ._binary import find_binary
from ._client import CALL, DIED, NO_CELL, NOTIFY, Item, api_args, decode_line, encode_json, encode_params, error_from, popen_options, raw_results
from ._common import (
    FileEntry,
    OutputCallback,
    SandboxBase,
    Variable,
    files_of,
    host_answer_async,
    notified,
    packages_of,
    run_params,
    variables_of,
)
from ._errors import BackyardError, SandboxClosed, ServerDied
from ._execution import Execution

_LINE_LIMIT = 1 << 30


class AsyncConnection:
    """A running ``backyard-ls api`` process driven from one event loop."""

    def __init__(self, proc: asyncio.subprocess.Process, binary: str) -> None:
        self.binary = binary
        self._proc = proc
        assert proc.stdin is not None and proc.stdout is not None
        self._stdin = proc.stdin
        self._stdout = proc.stdout
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._routes: dict[str, Callable[[Item], None]] = {}
        self._raw: set[str] = set()
        self.dead: BaseException | None = None
        self._reader = asyncio.ensure_future(self._read())
        self.max_request_bytes = 0
        self.version = ""

    @classmethod
    async def start(cls, binary: str) -> AsyncConnection:
        try:
            proc = await asyncio.create_subprocess_exec(
                binary, *api_args(), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=_LINE_LIMIT, **popen_options()
            )
        except OSError as e:
            raise ServerDied(f"cannot start {binary}: {e}") from e
        conn = cls(proc, binary)
        hello = await conn.call(p.HELLO, {"client": "backyard_ls asyncio (Python %d.%d)" % sys.version_info[:2]})
        conn.version, conn.max_request_bytes = hello["version"], hello["max_request_bytes"]
        return conn

    def alive(self) -> bool:
        return self.dead is None

    def _write(self, data: bytes) -> None:
        if self.dead is not None:
            raise ServerDied(f"backyard-ls exited: {self.dead}") from self.dead
        try:
            self._stdin.write(data)
        except (OSError, RuntimeError) as e:
            raise ServerDied(f"backyard-ls is gone: {e}") from e

    def request(self, method: str, params: Any) -> asyncio.Future[Any]:
        """Sends a request; the future gets its result (or its error)."""
        body = encode_params(method, params)
        i = next(self._ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[i] = fut
        try:
            self._write(('{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}\n' % (i, method, body)).encode())
        except BaseException:
            del self._pending[i]
            raise
        return fut

    async def call(self, method: str, params: Any) -> Any:
        """Sends a request and returns its result."""
        fut = self.request(method, params)
        await self._stdin.drain()
        return await fut

    def notify(self, method: str, params: Any) -> None:
        self._write(('{"jsonrpc":"2.0","method":"%s","params":%s}\n' % (method, encode_params(method, params))).encode())

    def notify_json(self, method: str, body: str) -> None:
        """Sends a notification whose params are already encoded."""
        self._write(('{"jsonrpc":"2.0","method":"%s","params":%s}\n' % (method, body)).encode())

    def notify_request(self, method: str, params: Any) -> None:
        """Sends a request whose answer nobody waits for (from a finalizer)."""
        if self.dead is None:
            try:
                i = next(self._ids)
                self._write(('{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}\n' % (i, method, encode_json(params))).encode())
            except (BackyardError, RuntimeError):
                pass

    async def drain(self) -> None:
        await self._stdin.drain()

    def respond(self, i: Any, result_json: str) -> None:
        self._write(('{"jsonrpc":"2.0","id":%s,"result":%s}\n' % (encode_json(i), result_json)).encode())

    def route(self, key: str, handle: Callable[[Item], None], raw: bool = False) -> None:
        """What the server sends about sandbox or batch key goes to handle;
        raw: batch key's results as RawResults, not parsed."""
        self._routes[key] = handle
        if raw:
            self._raw.add(key)

    def unroute(self, key: str) -> None:
        self._routes.pop(key, None)
        self._raw.discard(key)

    async def _read(self) -> None:
        reason: BaseException = EOFError("the server closed its output")
        loads = decode_line
        try:
            while True:
                line = await self._stdout.readline()
                if not line:
                    break
                if self._raw:
                    got = raw_results(line)
                    if got is not None and got[0] in self._raw:
                        raw = self._routes.get(got[0])
                        if raw is not None:
                            raw((NOTIFY, p.BATCH_RESULTS, got[1]))
                        continue
                msg = loads(line)
                method = msg.get("method")
                if method is None:
                    fut = self._pending.pop(msg.get("id"), None)
                    if fut is not None and not fut.done():
                        if "error" in msg:
                            fut.set_exception(error_from(msg["error"]))
                        else:
                            fut.set_result(msg.get("result"))
                    continue
                params = msg.get("params") or {}
                key = params.get("sandbox") or params.get("batch")
                handle = self._routes.get(key) if key else None
                if "id" in msg:
                    if handle is not None:
                        handle((CALL, msg))
                    else:
                        self.respond(msg["id"], NO_CELL)
                elif handle is not None:
                    handle((NOTIFY, method, params))
                elif method == p.WARNING:
                    warnings.warn(str(params.get("message")), RuntimeWarning, stacklevel=1)
        except asyncio.CancelledError:
            # The loop is ending (asyncio.run cancels its tasks and waits
            # for them): the server closes everything and exits while the
            # loop still runs, so nothing outlives it.
            reason = EOFError("the event loop stopped")
            self._close_stdin()
            try:
                await asyncio.wait_for(self._proc.wait(), 10)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                self._proc.kill()
            raise
        except BaseException as e:  # noqa: BLE001 - every waiter must hear it
            reason = e
        finally:
            self.dead = reason
            err = ServerDied(f"backyard-ls exited: {reason}")
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(err)
            self._pending.clear()
            for handle in list(self._routes.values()):
                handle((DIED, err))

    def _close_stdin(self) -> None:
        try:
            self._stdin.close()
        except (OSError, RuntimeError):
            pass

    async def aclose(self) -> None:
        """Ends the process: it closes every sandbox and batch and exits."""
        self._close_stdin()
        try:
            await asyncio.wait_for(self._proc.wait(), 10)
        except asyncio.TimeoutError:
            self._proc.terminate()


_conns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Future[AsyncConnection]]] = weakref.WeakKeyDictionary()


async def async_connection(binary: str | os.PathLike[str] | None = None) -> AsyncConnection:
    """The process serving this event loop for binary, started on first use
    and again if it died."""
    path = find_binary(binary)
    loop = asyncio.get_running_loop()
    mine = _conns.setdefault(loop, {})
    fut = mine.get(path)
    if fut is not None and fut.done() and (fut.exception() is not None or not fut.result().alive()):
        fut = None
    if fut is None:
        fut = asyncio.ensure_future(AsyncConnection.start(path))
        mine[path] = fut
    return await asyncio.shield(fut)


class AsyncSandbox(SandboxBase):
    """Sandbox for asyncio programs: the same parameters and methods, as
    coroutines. Many can run at once over the event loop's one
    ``backyard-ls`` process.

        async with AsyncSandbox() as sb:
            r = await sb.run("sum(range(10))")

    It opens on ``async with``, ``await sb.open()`` (or ``await sb``) or its
    first run. Host functions may be coroutine functions (awaited on the
    loop) or plain functions (called on the loop's thread: keep them quick);
    output callbacks are called on the loop.
    """

    def _opened(self) -> None:
        self._conn: AsyncConnection | None = None
        self._lock: asyncio.Lock | None = None
        self._opening: asyncio.Future[None] | None = None
        self._tasks: set[asyncio.Future[Any]] = set()

    async def open(self) -> AsyncSandbox:
        """Open the sandbox (once; later calls return at once)."""
        if self._closed:
            raise SandboxClosed("the sandbox is closed")
        if self._opening is None:
            self._opening = asyncio.ensure_future(self._open())
        await asyncio.shield(self._opening)
        return self

    async def _open(self) -> None:
        conn = await async_connection(self._binary)
        res = await conn.call(p.OPEN, self._params)
        self._conn = conn
        self._lock = asyncio.Lock()
        self.id, self.backend = res["sandbox"], res["backend"]
        weakref.finalize(self, conn.notify_request, p.CLOSE, {"sandbox": self.id})

    def __await__(self) -> Generator[Any, None, AsyncSandbox]:
        return self.open().__await__()

    async def __aenter__(self) -> AsyncSandbox:
        return await self.open()

    async def __aexit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        await self.close()

    async def _ready(self) -> AsyncConnection:
        if self._conn is None:
            await self.open()
        assert self._conn is not None
        return self._conn

    def _handler(self, conn: AsyncConnection, on_stdout: OutputCallback | None, on_stderr: OutputCallback | None) -> Callable[[Item], None]:
        functions, on_progress, tasks = self._functions, self._on_progress, self._tasks

        def keep(v: Any) -> None:
            if inspect.isawaitable(v):
                t = asyncio.ensure_future(v)
                tasks.add(t)
                t.add_done_callback(tasks.discard)

        async def answer(msg: dict[str, Any]) -> None:
            params = msg["params"]
            name = params.get("function", "")
            try:
                conn.respond(msg["id"], await host_answer_async(functions.get(name), name, params))
            except BackyardError:
                pass  # the server is gone: the run fails on its own

        def handle(item: Item) -> None:
            if item[0] == CALL:
                keep(answer(item[1]))
            elif item[0] == NOTIFY:
                keep(notified(item[1], item[2], on_stdout, on_stderr, on_progress))

        return handle

    async def _routed(self, method: str, params: Any, on_stdout: OutputCallback | None = None, on_stderr: OutputCallback | None = None) -> Any:
        conn = await self._ready()
        assert self._lock is not None
        async with self._lock:
            conn.route(self.id, self._handler(conn, on_stdout, on_stderr))
            try:
                return await conn.call(method, params)
            except asyncio.CancelledError:
                # A cancelled run stops the cell too.
                conn.notify_request(p.INTERRUPT, {"sandbox": self.id})
                raise
            finally:
                conn.unroute(self.id)

    async def run(
        self,
        code: str,
        /,
        *,
        timeout: float | None = None,
        inputs: Mapping[str, Any] | None = None,
        on_stdout: OutputCallback | None = None,
        on_stderr: OutputCallback | None = None,
        **named_inputs: Any,
    ) -> Execution:
        """Run code like a notebook cell and return what it did (see
        Sandbox.run). Cancelling the awaiting task interrupts the cell."""
        conn = await self._ready()
        out, err, routed = self._callbacks(on_stdout, on_stderr)
        params = run_params(self.id, code, timeout, inputs, named_inputs, out is not None or err is not None)
        if routed:
            return Execution(await self._routed(p.RUN, params, out, err))
        assert self._lock is not None
        async with self._lock:
            try:
                return Execution(await conn.call(p.RUN, params))
            except asyncio.CancelledError:
                conn.notify_request(p.INTERRUPT, {"sandbox": self.id})
                raise

    async def run_code(self, code: str, /, **kwargs: Any) -> Execution:
        """``run``, under the name E2B's sandboxes use."""
        return await self.run(code, **kwargs)

    async def interrupt(self) -> bool:
        """Stop the running cell, keeping the namespace as it was before it;
        True when a cell was running."""
        conn = await self._ready()
        res: p.InterruptResult = await conn.call(p.INTERRUPT, {"sandbox": self.id})
        return res["interrupted"]

    async def reset(self) -> None:
        """Empty the namespace and set the execution count to 0."""
        conn = await self._ready()
        assert self._lock is not None
        async with self._lock:
            await conn.call(p.RESET, {"sandbox": self.id})

    reset_session = reset

    async def info(self) -> p.KernelInfo:
        """The kernel's backend, runtime, state, execution count and versions."""
        conn = await self._ready()
        result: p.KernelInfo = await conn.call(p.INFO, {"sandbox": self.id})
        return result

    async def variables(self) -> list[Variable]:
        """The names bound in the namespace, with type and repr."""
        conn = await self._ready()
        return variables_of(await conn.call(p.VARIABLES, {"sandbox": self.id}))

    async def install(self, packages: str | Iterable[str]) -> list[str]:
        """Install packages for the container kernel (see Sandbox.install)."""
        wanted = packages_of(packages)
        await self._ready()
        res: p.InstallResult = await self._routed(p.INSTALL, {"sandbox": self.id, "packages": wanted})
        return res["installed"]

    install_packages = install

    async def files(self) -> list[FileEntry]:
        """The files the runs wrote that differ from the workspace."""
        conn = await self._ready()
        return files_of(await conn.call(p.FILES, {"sandbox": self.id}))

    async def save_files(self, paths: Iterable[str] | None = None) -> list[str]:
        """Write the kernel's version of paths (default: all of files()) to
        the workspace; return the paths written."""
        conn = await self._ready()
        wanted = [f.path for f in await self.files()] if paths is None else list(paths)
        res: p.SaveFilesResult = await conn.call(p.SAVE_FILES, {"sandbox": self.id, "paths": wanted})
        return res["saved"]

    async def close(self) -> None:
        """Stop the kernel (its worker or container) and forget its state."""
        if self._closed:
            return
        self._closed = True
        if self._conn is not None and self._conn.alive():
            try:
                await self._conn.call(p.CLOSE, {"sandbox": self.id})
            except BackyardError:
                pass
