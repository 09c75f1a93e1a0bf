"""Sandbox: a stateful kernel for a program, over the shared server."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import Any

from . import _protocol as p
from ._client import CALL, NOTIFY, Connection, Item, connection, encode_params, encode_string
from ._common import (
    FileEntry,
    OutputCallback,
    SandboxBase,
    Variable,
    files_of,
    host_answer,
    notified,
    packages_of,
    run_params,
    variables_of,
)
from ._errors import BackyardError
from ._execution import Execution


def _close(conn: Connection, sandbox: str) -> None:
    conn.call_nowait(p.CLOSE, {"sandbox": sandbox})


class Sandbox(SandboxBase):
    """A sandboxed, stateful Python kernel: each ``run`` keeps the names the
    ones before it defined, like a notebook's cells.

    The code runs on Monty (pydantic's sandboxed interpreter: no access to
    the host but what you grant) or, with ``backend="container"`` or when
    ``"auto"`` finds the code needs full CPython, in a container (gVisor
    when the engine has it). It works in an empty folder of its own,
    removed on close, unless you give it a host folder (``workspace``); it
    sees none of the host's environment but ``env``, and can call only the
    host functions you pass (``functions``).

    Every Sandbox of a program shares one ``backyard-ls api`` process
    (started on first use; it exits with the program). Use it as a context
    manager, or call ``close()``; one that is garbage-collected is closed
    too.

    Args:
        backend: ``"auto"`` (Monty, moving to a container when the code
            needs full CPython; the default), ``"monty"`` or ``"container"``.
        timeout: time limit of one run, in seconds (default 30).
        memory_mb: memory limit of the kernel, in MiB (default 256).
        image: image of the container kernel (default python:3.13-slim).
        runtime: ``"runsc"`` (gVisor) or ``"runc"``; default: gVisor when
            the engine has it.
        network: ``"none"`` (default) or ``"bridge"``; True/False too.
        workspace: a host folder the code sees as its working directory,
            read-only unless ``files_write="workspace"``; default: an
            empty folder of its own (the same path on every backend),
            removed when the sandbox closes.
        files_write: ``"sandbox"`` keeps the files the code writes in the
            kernel (``files()``, ``save_files()``); ``"workspace"`` writes
            the real files.
        env: environment variables the code sees.
        functions: host functions the code can call, ``{name: callable}``
            or a list of functions. Arguments and results are
            JSON-compatible; an exception raised in one raises in the cell
            with its type and message. They run on the thread that called
            ``run``; a coroutine function is run to its end.
        auto_install: install the packages a container run imports but the
            image lacks (``"on"``/True, ``"off"``/False).
        index_url, find_links: where installs come from.
        recursion_limit, max_output_bytes: further limits of each run.
        on_stdout, on_stderr: default output callbacks of ``run``.
        on_progress: called with a Progress while a container starts, an
            image is pulled or packages install.
        binary: the ``backyard-ls`` binary (default: find_binary()).
        monty: the Monty worker binary (default: the server's search).
        sandbox_type, max_duration_sec, max_memory_mb, image_name,
            enable_network: the original ``backyard``'s names of backend,
            timeout, memory_mb, image and network.

    Raises:
        BadArgument: a parameter is wrong.
        BackendUnavailable: the backend cannot run (no Monty worker).
        BinaryNotFound, ServerDied: no usable ``backyard-ls`` binary.
    """

    def _opened(self) -> None:
        self._lock = threading.Lock()
        self._conn = connection(self._binary)
        res = self._conn.call(p.OPEN, self._params)
        self.id, self.backend = res["sandbox"], res["backend"]
        self._id_json = encode_string(self.id)
        self._finalizer = weakref.finalize(self, _close, self._conn, self.id)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _handler(self, on_stdout: OutputCallback | None, on_stderr: OutputCallback | None) -> Any:
        conn, functions, on_progress = self._conn, self._functions, self._on_progress

        def handle(item: Item) -> None:
            if item[0] == CALL:
                msg = item[1]
                params = msg["params"]
                name = params.get("function", "")
                conn.respond(msg["id"], host_answer(functions.get(name), name, params))
            elif item[0] == NOTIFY:
                notified(item[1], item[2], on_stdout, on_stderr, on_progress)

        return handle

    def _routed(self, method: str, params: Any, on_stdout: OutputCallback | None = None, on_stderr: OutputCallback | None = None) -> Any:
        """A request during which the server may call back: output, host
        functions, progress. Such requests of one sandbox take turns."""
        with self._lock:
            try:
                return self._conn.call(method, params, self._handler(on_stdout, on_stderr), route=self.id)
            except KeyboardInterrupt:
                # Ctrl+C while the cell runs stops the cell too.
                self._conn.call_nowait(p.INTERRUPT, {"sandbox": self.id})
                raise

    def run(
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
        """Run code like a notebook cell and return what it did.

        Names the code defines stay for the next run. The value of a
        trailing expression is the result (``Execution.value``). A Python
        exception, a timeout or a crash is a result too, never raised.

        Args:
            code: the Python code.
            timeout: time limit of this run only, in seconds.
            inputs, **named_inputs: values bound as globals before the code
                runs (JSON-compatible: None, bool, int, float, str, lists,
                dicts); ``run("x * 2", x=21)``.
            on_stdout, on_stderr: called with output as the code prints it
                (the whole output is in the result too).

        Raises:
            BadArgument: code or an input is not acceptable.
            BackendUnavailable: the backend cannot run anything, or (auto)
                the code needs a container that cannot start; nothing of
                it ran and the sandbox stays on Monty.
            SandboxClosed, ServerDied: the sandbox is gone.
        """
        out, err, routed = self._callbacks(on_stdout, on_stderr)
        if not routed:
            # The common run: its params encoded by hand, no callbacks.
            if timeout is None and not inputs and not named_inputs and type(code) is str:
                body = '{"sandbox":%s,"code":%s}' % (self._id_json, encode_string(code))
            else:
                body = encode_params(p.RUN, run_params(self.id, code, timeout, inputs, named_inputs, False))
            with self._lock:
                try:
                    return Execution(self._conn.call_json(p.RUN, body))
                except KeyboardInterrupt:
                    self._conn.call_nowait(p.INTERRUPT, {"sandbox": self.id})
                    raise
        params = run_params(self.id, code, timeout, inputs, named_inputs, out is not None or err is not None)
        return Execution(self._routed(p.RUN, params, out, err))

    def run_code(self, code: str, /, **kwargs: Any) -> Execution:
        """``run``, under the name E2B's sandboxes use."""
        return self.run(code, **kwargs)

    def interrupt(self) -> bool:
        """Stop the running cell (from another thread), keeping the namespace
        as it was before it; True when a cell was running."""
        res: p.InterruptResult = self._conn.call(p.INTERRUPT, {"sandbox": self.id})
        return res["interrupted"]

    def reset(self) -> None:
        """Empty the namespace and set the execution count to 0 (an auto
        sandbox goes back to Monty)."""
        with self._lock:
            self._conn.call(p.RESET, {"sandbox": self.id})

    reset_session = reset
    """The original ``backyard``'s name of ``reset``."""

    def info(self) -> p.KernelInfo:
        """The kernel's backend, runtime, state, execution count and versions."""
        result: p.KernelInfo = self._conn.call(p.INFO, {"sandbox": self.id})
        return result

    def variables(self) -> list[Variable]:
        """The names bound in the namespace, with type and repr."""
        return variables_of(self._conn.call(p.VARIABLES, {"sandbox": self.id}))

    def install(self, packages: str | Iterable[str]) -> list[str]:
        """Install packages (pip requirement strings) for the container
        kernel; the next run can import them. Returns those installed.

        Raises:
            BadArgument: not a requirement, or the backend is monty.
            BackyardError: the install failed (the message says why).
        """
        res: p.InstallResult = self._routed(p.INSTALL, {"sandbox": self.id, "packages": packages_of(packages)})
        return res["installed"]

    install_packages = install
    """The original ``backyard``'s name of ``install``."""

    def files(self) -> list[FileEntry]:
        """The files the runs wrote that differ from the workspace (kept in
        the kernel with ``files_write="sandbox"``)."""
        return files_of(self._conn.call(p.FILES, {"sandbox": self.id}))

    def save_files(self, paths: Iterable[str] | None = None) -> list[str]:
        """Write the kernel's version of paths (default: every file
        ``files()`` lists) to the workspace; return the paths written."""
        wanted = [f.path for f in self.files()] if paths is None else list(paths)
        res: p.SaveFilesResult = self._conn.call(p.SAVE_FILES, {"sandbox": self.id, "paths": wanted})
        return res["saved"]

    def close(self) -> None:
        """Stop the kernel (its worker or container) and forget its state."""
        if self._closed:
            return
        self._closed = True
        self._finalizer.detach()
        if self._conn.alive():
            try:
                self._conn.call(p.CLOSE, {"sandbox": self.id})
            except BackyardError:
                pass
