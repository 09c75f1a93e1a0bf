"""What Sandbox and AsyncSandbox share: their parameters as the API's open
params, host function calls, and the small records they return."""

from __future__ import annotations

import asyncio
import inspect
import os
import warnings
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union

from . import _protocol as p
from ._client import encode_json
from ._errors import BadArgument

Backend = Literal["auto", "monty", "container"]
HostFunction = Callable[..., Any]
"""A host function: called with the cell's JSON-compatible arguments; returns a JSON-compatible value (or an awaitable of one)."""
Functions = Union[Mapping[str, HostFunction], Iterable[HostFunction]]
OutputCallback = Callable[[str], Any]


@dataclass(frozen=True)
class Progress:
    """A long step of a sandbox or batch: a container starting, an image pull, a package install."""

    title: str
    message: str
    percent: int
    """0 to 100; -1 when unknown."""
    done: bool


@dataclass(frozen=True)
class Variable:
    """A name bound in a sandbox's namespace."""

    name: str
    type: str
    """The value's type name, e.g. ``"list"``."""
    repr: str
    """``repr()`` of the value, cut to about 200 bytes."""


@dataclass(frozen=True)
class FileEntry:
    """A file of a sandbox's overlay: one its runs wrote that differs from the workspace."""

    path: str
    size: int
    """Bytes; 0 for a deleted file."""
    state: p.FileState


ProgressCallback = Callable[[Progress], Any]


def functions_of(functions: Functions | None) -> dict[str, HostFunction]:
    """Host functions by name: a mapping, or callables named by __name__."""
    if functions is None:
        return {}
    if isinstance(functions, Mapping):
        out = dict(functions)
    else:
        out = {}
        for f in functions:
            name = getattr(f, "__name__", None)
            if not isinstance(name, str) or not name.isidentifier():
                raise BadArgument(f"functions: {f!r} has no name; pass a dict {{name: callable}}")
            out[name] = f
    for name, f in out.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise BadArgument(f"functions: {name!r} is not a Python identifier")
        if not callable(f):
            raise BadArgument(f"functions: {name} is {type(f).__name__}, not a callable")
    return out


def open_params(
    *,
    backend: str | None,
    timeout: float | None,
    memory_mb: int | None,
    recursion_limit: int | None,
    max_output_bytes: int | None,
    image: str | None,
    runtime: str | None,
    network: str | bool | None,
    workspace: str | os.PathLike[str] | None,
    files_write: str | None,
    env: Mapping[str, str] | None,
    functions: Iterable[str],
    auto_install: str | bool | None,
    index_url: str | None,
    find_links: str | os.PathLike[str] | None,
    monty: str | os.PathLike[str] | None,
) -> p.OpenArgs:
    """The open params of a sandbox's parameters (None: the server's default)."""
    a: p.OpenArgs = {}
    if backend is not None:
        a["backend"] = _enum("backend", backend, ("auto", "monty", "container"))  # type: ignore[typeddict-item]
    if timeout is not None:
        a["timeout_s"] = _number("timeout", timeout)
    if memory_mb is not None:
        a["memory_mb"] = _int("memory_mb", memory_mb)
    if recursion_limit is not None:
        a["recursion_limit"] = _int("recursion_limit", recursion_limit)
    if max_output_bytes is not None:
        a["max_output_bytes"] = _int("max_output_bytes", max_output_bytes)
    if image is not None:
        a["image"] = str(image)
    if runtime is not None:
        a["runtime"] = _enum("runtime", runtime, ("", "runc", "runsc"))  # type: ignore[typeddict-item]
    if network is not None:
        if isinstance(network, bool):
            network = "bridge" if network else "none"
        a["network"] = _enum("network", network, ("none", "bridge"))  # type: ignore[typeddict-item]
    if workspace is not None:
        a["workspace"] = os.path.abspath(os.fspath(workspace))
    if files_write is not None:
        a["files_write"] = _enum("files_write", files_write, ("sandbox", "workspace"))  # type: ignore[typeddict-item]
    if env:
        for k, v in env.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise BadArgument(f"env: {k!r}={v!r}: names and values must be strings")
        a["env"] = dict(env)
    names = list(functions)
    if names:
        a["functions"] = names
    if auto_install is not None:
        if isinstance(auto_install, bool):
            auto_install = "on" if auto_install else "off"
        a["auto_install"] = _enum("auto_install", auto_install, ("off", "on"))  # type: ignore[typeddict-item]
    if index_url is not None:
        a["index_url"] = str(index_url)
    if find_links is not None:
        a["find_links"] = os.path.abspath(os.fspath(find_links))
    if monty is not None:
        a["monty"] = os.fspath(monty)
    return a


def _enum(name: str, v: Any, allowed: tuple[str, ...]) -> str:
    if not isinstance(v, str) or v not in allowed:
        raise BadArgument(f"{name} must be one of {', '.join(repr(a) for a in allowed if a)}, got {v!r}")
    return v


def _number(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise BadArgument(f"{name} must be a number of seconds, got {v!r}")
    return float(v)


def _int(name: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise BadArgument(f"{name} must be a whole number, got {v!r}")
    return v


def run_params(sandbox: str, code: str, timeout: float | None, inputs: Mapping[str, Any] | None, named: dict[str, Any], stream: bool) -> p.RunArgs:
    """The run params of one run."""
    if not isinstance(code, str):
        raise BadArgument(f"code must be a string, got {type(code).__name__}")
    a: p.RunArgs = {"sandbox": sandbox, "code": code}
    if inputs or named:
        merged = dict(inputs or {})
        merged.update(named)
        for k in merged:
            if not isinstance(k, str) or not k.isidentifier():
                raise BadArgument(f"input {k!r} is not a Python identifier")
        a["inputs"] = merged
    if timeout is not None:
        a["timeout_s"] = _number("timeout", timeout)
    if stream:
        a["stream"] = True
    return a


class SandboxBase:
    """The parameters Sandbox and AsyncSandbox share (Sandbox documents
    them); a subclass opens the sandbox in _opened."""

    def __init__(
        self,
        backend: Backend | None = None,
        *,
        timeout: float | None = None,
        memory_mb: int | None = None,
        image: str | None = None,
        runtime: str | None = None,
        network: str | bool | None = None,
        workspace: str | os.PathLike[str] | None = None,
        files_write: str | None = None,
        env: Mapping[str, str] | None = None,
        functions: Functions | None = None,
        auto_install: str | bool | None = None,
        index_url: str | None = None,
        find_links: str | os.PathLike[str] | None = None,
        recursion_limit: int | None = None,
        max_output_bytes: int | None = None,
        on_stdout: OutputCallback | None = None,
        on_stderr: OutputCallback | None = None,
        on_progress: ProgressCallback | None = None,
        binary: str | os.PathLike[str] | None = None,
        monty: str | os.PathLike[str] | None = None,
        sandbox_type: Backend | None = None,
        max_duration_sec: float | None = None,
        max_memory_mb: int | None = None,
        image_name: str | None = None,
        enable_network: bool | None = None,
    ) -> None:
        self._functions = functions_of(functions)
        self._params = open_params(
            backend=backend if backend is not None else sandbox_type,
            timeout=timeout if timeout is not None else max_duration_sec,
            memory_mb=memory_mb if memory_mb is not None else max_memory_mb,
            recursion_limit=recursion_limit,
            max_output_bytes=max_output_bytes,
            image=image if image is not None else image_name,
            runtime=runtime,
            network=network if network is not None else enable_network,
            workspace=workspace,
            files_write=files_write,
            env=env,
            functions=self._functions,
            auto_install=auto_install,
            index_url=index_url,
            find_links=find_links,
            monty=monty,
        )
        self._binary = binary
        self._on_stdout = on_stdout
        self._on_stderr = on_stderr
        self._on_progress = on_progress
        self._closed = False
        self.id: str = ""
        """The sandbox's id in the server (empty until it is open)."""
        self.backend: Backend | None = None
        """The backend it was opened with."""
        self._opened()

    def _opened(self) -> None:
        """Called at the end of __init__."""

    def _callbacks(self, on_stdout: OutputCallback | None, on_stderr: OutputCallback | None) -> tuple[OutputCallback | None, OutputCallback | None, bool]:
        """A run's output callbacks (its own, else the sandbox's) and
        whether the run needs the server's messages while it runs."""
        out = on_stdout if on_stdout is not None else self._on_stdout
        err = on_stderr if on_stderr is not None else self._on_stderr
        routed = out is not None or err is not None or bool(self._functions) or self._on_progress is not None
        return out, err, routed

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id or '(not open)'} backend={self.backend!r}{' closed' if self._closed else ''}>"


def notified(method: str, params: dict[str, Any], on_stdout: OutputCallback | None, on_stderr: OutputCallback | None, on_progress: ProgressCallback | None) -> Any:
    """Handles what the server says about a running request (output,
    progress, a warning); returns what the callback returned."""
    if method == p.OUTPUT:
        cb = on_stdout if params["stream"] == "stdout" else on_stderr
        return cb(params["text"]) if cb is not None else None
    if method == p.PROGRESS:
        return on_progress(progress_of(params)) if on_progress is not None else None
    if method == p.WARNING:
        warnings.warn(str(params.get("message")), RuntimeWarning, stacklevel=3)
    return None


def progress_of(params: dict[str, Any]) -> Progress:
    return Progress(params.get("title", ""), params.get("message", ""), params.get("percent", -1), params.get("done", False))


def variables_of(result: p.VariablesResult) -> list[Variable]:
    return [Variable(v["name"], v["type"], v["repr"]) for v in result["variables"]]


def files_of(result: p.FilesResult) -> list[FileEntry]:
    return [FileEntry(f["path"], f["size"], f["state"]) for f in result["files"]]


def packages_of(packages: str | Iterable[str]) -> list[str]:
    if isinstance(packages, str):
        return [packages]
    out = list(packages)
    for x in out:
        if not isinstance(x, str):
            raise BadArgument(f"packages must be strings, got {x!r}")
    return out


def host_answer(fn: HostFunction | None, name: str, params: p.CallParams) -> str:
    """Calls a host function for the server (a coroutine function is run
    to its end) and returns the JSON of the call's result: its value, or
    the exception it raised."""
    if fn is None:
        return raised("NameError", f"name {name!r} is not defined")
    try:
        v = fn(*params.get("args") or (), **params.get("kwargs") or {})
        if inspect.isawaitable(v):
            v = asyncio.run(_wait(v))
    except Exception as e:  # noqa: BLE001 - the exception goes to the cell
        return raised(type(e).__name__, str(e))
    return value_answer(name, v)


async def host_answer_async(fn: HostFunction | None, name: str, params: p.CallParams) -> str:
    """host_answer for an event loop: a coroutine function is awaited."""
    if fn is None:
        return raised("NameError", f"name {name!r} is not defined")
    try:
        v = fn(*params.get("args") or (), **params.get("kwargs") or {})
        if inspect.isawaitable(v):
            v = await v
    except Exception as e:  # noqa: BLE001 - the exception goes to the cell
        return raised(type(e).__name__, str(e))
    return value_answer(name, v)


def value_answer(name: str, v: Any) -> str:
    try:
        return '{"value":%s}' % encode_json(v)
    except (TypeError, ValueError, RecursionError) as e:
        return raised("TypeError", f"{name} returned a value that is not JSON-compatible: {e}")


async def _wait(v: Awaitable[Any]) -> Any:
    return await v


def raised(typ: str, message: str) -> str:
    """The JSON of a call's result that raises typ(message) in the cell."""
    return encode_json({"error": {"type": typ, "message": message}})
