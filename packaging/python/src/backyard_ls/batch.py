"""Batches: many independent snippets, each from an empty namespace, run in
parallel; their results come back as an iterator.

``run_batch`` (threads) and ``run_batch_async`` (asyncio) take an iterable
of snippets (strings, or dicts with ``id``, ``code``, ``inputs``, ``files``,
``timeout``) and stream it to one batch in the shared ``backyard-ls``
process: Monty workers, and fork-server containers (with ``preload``
modules imported once) for snippets that need CPython, stay up for the
whole batch. At most ``window`` snippets are in flight, so neither side
holds the whole list.

The pieces other modules build on: ``batch_options`` (run_batch's
options, checked, with the batch_open params they make), ``to_snippet`` (a
snippet as the wire has it, with its id) and ``Execution.from_record`` (a
wire record as an Execution).
"""

from __future__ import annotations

import functools
import inspect
import operator
import os
import time
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice, repeat
from queue import SimpleQueue
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, TypeVar, Union

from . import _protocol as p
from ._client import DIED, NOTIFY, RESPONSE, Queue, RawResults, connection, encode_params, encode_string, error_from, result_of
from ._common import Backend
from ._errors import BadArgument, BackyardError, ServerDied
from ._execution import Execution, LazyExecution

Snippet = Union[str, Mapping[str, Any]]
"""A snippet: its code, or a dict with ``code`` and optionally ``id`` (any
value, given back as ``Execution.id``; default: the snippet's index),
``inputs`` (the lines its stdin holds), ``files`` (relative path → text,
written into its working directory; needs a container) and ``timeout``
(seconds)."""

DEFAULT_WINDOW = 8192
"""Snippets in flight at most (sent, their results not yet taken)."""

_CHUNK = 512

_CODE = '{"code":%s}'
_ID_CODE = frozenset(("id", "code"))
_get_code = operator.itemgetter("code")


@dataclass(frozen=True)
class BatchProgress:
    """How far a batch is, given to run_batch's ``on_progress``."""

    done: int
    """Results received."""
    failed: int
    """Of those, the ones whose status is not ok."""
    total: int | None
    """Snippets in all, when the input has a length."""
    elapsed_s: float
    """Seconds since the batch started."""

    @property
    def rate(self) -> float:
        """Results per second so far."""
        return self.done / self.elapsed_s if self.elapsed_s > 0 else 0.0


ProgressCallback = Callable[[BatchProgress], Any]

_KEYS = frozenset(("id", "code", "inputs", "files", "timeout", "timeout_s"))


def to_snippet(item: Snippet, index: int) -> tuple[Any, p.BatchSnippet]:
    """A snippet as batch_add sends it, and its id (default: index).

    Raises:
        BadArgument: the item is not a snippet.
    """
    if isinstance(item, str):
        return index, {"code": item}
    if not isinstance(item, Mapping):
        raise BadArgument(f"snippet {index} is {type(item).__name__}: a snippet is code (a string) or a dict with \"code\"")
    unknown = set(item) - _KEYS
    if unknown:
        raise BadArgument(f"snippet {index} has unknown keys {sorted(unknown)} (a snippet has {', '.join(sorted(_KEYS))})")
    code = item.get("code")
    if not isinstance(code, str):
        raise BadArgument(f"snippet {index}: \"code\" must be a string, got {type(code).__name__}")
    sn: p.BatchSnippet = {"code": code}
    inputs = item.get("inputs")
    if inputs is not None:
        if isinstance(inputs, str) or not all(isinstance(x, str) for x in inputs):
            raise BadArgument(f"snippet {index}: \"inputs\" must be a list of strings (stdin lines)")
        sn["inputs"] = list(inputs)
    files = item.get("files")
    if files is not None:
        if not isinstance(files, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
            raise BadArgument(f"snippet {index}: \"files\" must map relative paths to text")
        sn["files"] = dict(files)
    timeout = item.get("timeout", item.get("timeout_s"))
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise BadArgument(f"snippet {index}: \"timeout\" must be a number of seconds")
        sn["timeout_s"] = float(timeout)
    return item.get("id", index), sn


@dataclass(frozen=True)
class BatchOptions:
    """run_batch's options other than the snippets, as batch_options makes them."""

    params: p.BatchOpenArgs
    """batch_open's params."""
    window: int
    on_progress: ProgressCallback | None
    binary: str | os.PathLike[str] | None


def batch_options(
    *,
    backend: Backend | None = None,
    parallel: int | None = None,
    ordered: bool = True,
    preload: Iterable[str] | None = None,
    timeout: float | None = None,
    memory_mb: int | None = None,
    recursion_limit: int | None = None,
    max_output_bytes: int | None = None,
    image: str | None = None,
    runtime: str | None = None,
    on_progress: ProgressCallback | None = None,
    window: int = DEFAULT_WINDOW,
    binary: str | os.PathLike[str] | None = None,
    monty: str | os.PathLike[str] | None = None,
) -> BatchOptions:
    """run_batch's options (None: the server's default), checked.

    Args:
        backend: ``"auto"`` (each snippet where it can run; the default),
            ``"monty"`` or ``"container"``.
        parallel: snippets running at once (default 2).
        ordered: results in input order (default); False gives each as it
            ends.
        preload: modules each container imports once before any snippet
            (e.g. ``["numpy"]``).
        timeout: time limit of each snippet, in seconds (a snippet's own
            ``timeout`` wins).
        memory_mb, recursion_limit, max_output_bytes: limits of each
            snippet.
        image, runtime: the containers' image and runtime.
        on_progress: called with a BatchProgress as results come.
        window: snippets in flight at most.
        binary: the ``backyard-ls`` binary (default: find_binary()).
        monty: the Monty worker binary (default: the server's search).

    Raises:
        BadArgument: an option is not acceptable.
    """
    a: p.BatchOpenArgs = {"ordered": bool(ordered)}
    if backend is not None:
        if backend not in ("auto", "monty", "container"):
            raise BadArgument(f"backend must be 'auto', 'monty' or 'container', got {backend!r}")
        a["backend"] = backend
    if parallel is not None:
        if isinstance(parallel, bool) or not isinstance(parallel, int) or parallel < 1:
            raise BadArgument(f"parallel must be a whole number ≥ 1, got {parallel!r}")
        a["parallel"] = parallel
    if preload is not None:
        mods = [preload] if isinstance(preload, str) else list(preload)
        if mods:
            a["preload"] = mods
    if timeout is not None:
        a["timeout_s"] = float(timeout)
    if memory_mb is not None:
        a["memory_mb"] = memory_mb
    if recursion_limit is not None:
        a["recursion_limit"] = recursion_limit
    if max_output_bytes is not None:
        a["max_output_bytes"] = max_output_bytes
    if image is not None:
        a["image"] = image
    if runtime is not None:
        a["runtime"] = runtime  # type: ignore[typeddict-item]
    if monty is not None:
        a["monty"] = os.fspath(monty)
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise BadArgument(f"window must be a whole number ≥ 1, got {window!r}")
    return BatchOptions(a, window, on_progress, binary)


_S = TypeVar("_S")
_R = TypeVar("_R")
_P = ParamSpec("_P")


def _taking(options: Callable[_P, BatchOptions]) -> Callable[[Callable[[_S, BatchOptions], _R]], Callable[Concatenate[_S, _P], _R]]:
    """Gives a function of (snippets, BatchOptions) the signature of
    (snippets, **batch_options's arguments), for callers and their tools."""

    def decorate(make: Callable[[_S, BatchOptions], _R]) -> Callable[Concatenate[_S, _P], _R]:
        def call(snippets: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
            return make(snippets, options(*args, **kwargs))

        functools.update_wrapper(call, make)
        mine, theirs = inspect.signature(make), inspect.signature(options)
        first = next(iter(mine.parameters.values())).replace(kind=inspect.Parameter.POSITIONAL_ONLY)
        setattr(call, "__signature__", theirs.replace(parameters=[first, *theirs.parameters.values()], return_annotation=mine.return_annotation))
        return call

    return decorate


class _Feed:
    """The bookkeeping run_batch and run_batch_async share: ids by index,
    what is in flight, progress."""

    def __init__(self, window: int, total: int | None, on_progress: ProgressCallback | None, ordered: bool = False) -> None:
        self.window = window
        self.low = max(1, min(window, _CHUNK) // 2)
        self.ordered = ordered
        self.total = total
        self.on_progress = on_progress
        self.ids: dict[int, Any] = {}
        self.sent = 0
        self.done = 0
        self.failed = 0
        self.exhausted = False
        self.start = time.monotonic()

    def room(self) -> int:
        """Snippets to send now: none until half a chunk's worth is free (a
        few results free room one notification at a time; a message per
        few snippets costs both sides)."""
        free = self.window - (self.sent - self.done)
        return 0 if self.exhausted or free < self.low else free

    def chunk(self, items: Iterator[Snippet], n: int) -> str:
        """The JSON of up to n snippets taken from items (code strings
        encoded by hand, without a Python loop: most batches are lists of
        code). ids keeps only the ids that are not the snippet's index."""
        n = min(n, _CHUNK)
        got = list(islice(items, n))
        if len(got) < n:
            self.exhausted = True
        types = set(map(type, got))
        if types <= {str}:
            self.sent += len(got)
            return ",".join(map(_CODE.__mod__, map(encode_string, got)))  # type: ignore[arg-type]
        if types == {dict}:
            framed = self._dicts(got)  # type: ignore[arg-type]
            if framed is not None:
                return framed
        out: list[str] = []
        append = out.append
        ids = self.ids
        sent = self.sent
        for item in got:
            if type(item) is str:
                append(_CODE % encode_string(item))
            elif type(item) is dict and type(item.get("code")) is str and item.keys() <= _ID_CODE:
                # Code and an id, the common dict: framed as a string is.
                append(_CODE % encode_string(item["code"]))
                sid = item.get("id", sent)
                if type(sid) is not int or sid != sent:
                    ids[sent] = sid
            else:
                sid, sn = to_snippet(item, sent)
                if type(sid) is not int or sid != sent:
                    ids[sent] = sid
                append(encode_params(p.BATCH_ADD, sn))
            sent += 1
        self.sent = sent
        return ",".join(out)

    def _dicts(self, got: list[dict[str, Any]]) -> str | None:
        """chunk for dicts that are code and an id at most, without a
        Python loop per snippet; None for any other."""
        if not all(map(_ID_CODE.issuperset, got)):
            return None
        try:
            codes = list(map(_get_code, got))
        except KeyError:
            return None
        if not set(map(type, codes)) <= {str}:
            return None
        sent = self.sent
        indexes = range(sent, sent + len(got))
        sids = list(map(dict.get, got, repeat("id"), indexes))
        if not (set(map(type, sids)) <= {int} and sids == list(indexes)):
            ids = self.ids
            for i, sid in zip(indexes, sids):
                if type(sid) is not int or sid != i:
                    ids[i] = sid
        self.sent = sent + len(got)
        return ",".join(map(_CODE.__mod__, map(encode_string, codes)))

    def add_params(self, batch: str, chunk: str) -> str:
        """batch_add's params for a chunk."""
        return '{"batch":%s,"snippets":[%s]}' % (encode_string(batch), chunk)

    def results(self, params: dict[str, Any] | RawResults, ready: deque[Execution]) -> None:
        """Takes a batch_results notification's results into ready."""
        if isinstance(params, RawResults):
            self.raw_results(params, ready)
            return
        ids = self.ids
        for r in params["results"]:
            rec = r["execution"]
            ready.append(Execution(rec, ids.pop(r["index"], r["index"])))
            if rec["status"] != "ok":
                self.failed += 1
        self.done += len(params["results"])
        if self.on_progress is not None and params["results"]:
            self.on_progress(BatchProgress(self.done, self.failed, self.total, time.monotonic() - self.start))
        err = params.get("error")
        if err:
            raise error_from({"message": err, "data": {"kind": params.get("error_kind", "internal")}})

    def raw_results(self, raw: RawResults, ready: deque[Execution]) -> None:
        """results for results the connection left unparsed: each a
        LazyExecution."""
        n = len(raw.pieces)
        done = self.done
        index: Iterable[int]
        if self.ordered and raw.index(0) == done and raw.index(n - 1) == done + n - 1:
            index = range(done, done + n)  # in order: no index to read
        else:
            index = map(raw.index, range(n))
        ids = self.ids
        if ids:
            index = [ids.pop(i, i) for i in index]
        ready.extend(map(LazyExecution, repeat(raw, n), range(n), index))
        self.done = done + n
        if self.on_progress is not None:
            self.failed += sum(1 for k in range(n) if raw.status(k) != "ok")
            self.on_progress(BatchProgress(self.done, self.failed, self.total, time.monotonic() - self.start))

    def finished(self) -> bool:
        return self.exhausted and self.done >= self.sent


def _length(snippets: Any) -> int | None:
    try:
        return len(snippets)
    except TypeError:
        return None


class BatchResults(Iterator[Execution]):
    """The results of run_batch, as an iterator (and a context manager).

    Closing it (``close()``, leaving a ``with`` block, breaking out of a
    ``for`` loop over it, or dropping it) stops the batch: no more snippets
    start, the running ones stop, and nothing of the batch stays running.
    """

    def __init__(self, snippets: Iterable[Snippet], options: BatchOptions) -> None:
        conn = connection(options.binary)
        self._conn = conn
        self._feed = _Feed(options.window, _length(snippets), options.on_progress, options.params.get("ordered", True))
        self._items = iter(snippets)
        self._ready: deque[Execution] = deque()
        self._q: Queue = SimpleQueue()
        self._closed = False
        self._end_id = 0
        self._ended = False
        self.batch: str = conn.call(p.BATCH_OPEN, options.params)["batch"]
        """The batch's id in the server."""
        conn.route(self.batch, self._q, raw=True)

    def __iter__(self) -> BatchResults:
        return self

    def __next__(self) -> Execution:
        while not self._ready:
            if self._closed:
                raise StopIteration
            if self._ended:
                self._finish()
                raise StopIteration
            self._send()
            item = self._conn.next_item(self._q)
            self._take(item)
        return self._ready.popleft()

    def _send(self) -> None:
        feed = self._feed
        try:
            while feed.room() > 0:
                chunk = feed.chunk(self._items, feed.room())
                if chunk:
                    self._conn.notify_json(p.BATCH_ADD, feed.add_params(self.batch, chunk))
                if feed.exhausted and not self._end_id:
                    self._end_id = self._conn.send(p.BATCH_END, {"batch": self.batch}, self._q)
        except BaseException:
            self.close()
            raise

    def _take(self, item: tuple[Any, ...]) -> None:
        tag = item[0]
        if tag == NOTIFY and item[1] == p.BATCH_RESULTS:
            try:
                self._feed.results(item[2], self._ready)
            except BackyardError:
                self._finish()
                raise
        elif tag == RESPONSE:
            if item[1].get("id") == self._end_id:
                self._ended = True
                result_of(item[1])
        elif tag == DIED:
            self._finish()
            raise ServerDied(f"backyard-ls exited: {item[1]}") from item[1]

    def _finish(self) -> None:
        self._closed = True
        self._conn.unroute(self.batch, self._q)

    def close(self) -> None:
        """Stop the batch and wait until nothing of it runs."""
        if self._closed:
            return
        self._closed = True
        if not self._ended and self._conn.alive():
            try:
                self._conn.call(p.BATCH_CANCEL, {"batch": self.batch})
            except BackyardError:
                pass
        self._conn.unroute(self.batch, self._q)

    def __enter__(self) -> BatchResults:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_closed", True):
            return
        if self._conn.reading_here():
            # Collected by the thread that reads the server's output: it
            # cannot wait for the answer it would have to read itself.
            self._closed = True
            self._conn.call_nowait(p.BATCH_CANCEL, {"batch": self.batch})
            self._conn.unroute(self.batch, self._q)
            return
        self.close()


@_taking(batch_options)
def run_batch(snippets: Iterable[Snippet], options: BatchOptions) -> BatchResults:
    """Run independent snippets in parallel and iterate over their results.

    Each snippet runs from an empty namespace and nothing it does reaches
    another. A snippet that raises, times out or crashes is a result
    (``Execution.status``), never an exception of the loop.

    Args:
        snippets: code strings, or dicts with ``code`` and optionally
            ``id``, ``inputs`` (stdin lines), ``files`` and ``timeout``;
            any iterable, read as the batch goes (a generator of millions is
            fine).
        **options: batch_options's: ``backend``, ``parallel`` (default 2),
            ``ordered`` (default True), ``preload``, ``timeout``,
            ``memory_mb``, ``recursion_limit``, ``max_output_bytes``,
            ``image``, ``runtime``, ``on_progress``, ``window``, ``binary``,
            ``monty``.

    Returns:
        An iterator of Execution, each with ``id``; closing it (or breaking
        out of the loop) stops the batch.

    Raises:
        BadArgument: an option or a snippet is not acceptable.
        BackendUnavailable: the backend cannot run (raised by the iterator
            when the containers do not start).
    """
    return BatchResults(snippets, options)


class AsyncBatchResults(AsyncIterator[Execution]):
    """The results of run_batch_async, as an async iterator (and an async
    context manager). Closing it (``aclose()``, leaving an ``async with``
    block) stops the batch; one dropped unclosed is stopped without
    waiting."""

    def __init__(self, snippets: Iterable[Snippet] | AsyncIterable[Snippet], options: BatchOptions) -> None:
        self._options = options
        self._snippets = snippets
        self._conn: Any = None
        self._ready: deque[Execution] = deque()
        self._feed = _Feed(options.window, _length(snippets), options.on_progress, options.params.get("ordered", True))
        self._closed = False
        self._ended = False
        self._end: Any = None
        self._events: Any = None
        self._pump: Any = None
        self.batch = ""

    async def _open(self) -> None:
        import asyncio

        from ._async import async_connection

        self._conn = await async_connection(self._options.binary)
        self._events = asyncio.Queue()
        res = await self._conn.call(p.BATCH_OPEN, self._options.params)
        self.batch = res["batch"]
        self._conn.route(self.batch, self._events.put_nowait, raw=True)
        self._pump = asyncio.ensure_future(self._send_all())

    async def _send_all(self) -> None:
        import asyncio

        feed = self._feed
        snippets = self._snippets
        try:
            if isinstance(snippets, AsyncIterable):
                ait = snippets.__aiter__()
                buf: list[Snippet] = []
                while not feed.exhausted:
                    while feed.room() <= 0:
                        await self._room.wait()
                        self._room.clear()
                    buf.clear()
                    n = min(feed.room(), _CHUNK)
                    while len(buf) < n:
                        try:
                            buf.append(await ait.__anext__())
                        except StopAsyncIteration:
                            break
                    chunk = feed.chunk(iter(buf), len(buf))
                    if len(buf) < n:
                        feed.exhausted = True
                    if chunk:
                        self._conn.notify_json(p.BATCH_ADD, feed.add_params(self.batch, chunk))
                    await asyncio.sleep(0)
            else:
                it = iter(snippets)
                while not feed.exhausted:
                    while feed.room() <= 0:
                        await self._room.wait()
                        self._room.clear()
                    chunk = feed.chunk(it, feed.room())
                    if chunk:
                        self._conn.notify_json(p.BATCH_ADD, feed.add_params(self.batch, chunk))
                    await asyncio.sleep(0)
            self._end = self._conn.request(p.BATCH_END, {"batch": self.batch})
            self._end.add_done_callback(lambda f: self._events.put_nowait((RESPONSE, f)))
        except BaseException as e:  # noqa: BLE001 - the iterator raises it
            self._events.put_nowait((DIED, e))

    def __aiter__(self) -> AsyncBatchResults:
        return self

    async def __anext__(self) -> Execution:
        import asyncio

        if self._conn is None:
            self._room = asyncio.Event()
            await self._open()
        while not self._ready:
            if self._closed or self._ended:
                await self._close(cancel=False)
                raise StopAsyncIteration
            item = await self._events.get()
            tag = item[0]
            if tag == NOTIFY:
                try:
                    self._feed.results(item[2], self._ready)
                except BackyardError:
                    await self._close(cancel=False)
                    raise
                self._room.set()
            elif tag == RESPONSE:
                self._ended = True
                try:
                    item[1].result()
                except BaseException:
                    await self._close(cancel=False)
                    raise
            elif tag == DIED:
                await self._close(cancel=True)
                e = item[1]
                if isinstance(e, BackyardError):
                    raise e
                raise ServerDied(f"backyard-ls exited: {e}") from e
        return self._ready.popleft()

    async def _close(self, cancel: bool) -> None:
        if self._closed:
            return
        self._closed = True
        if self._pump is not None:
            self._pump.cancel()
        if self._conn is None:
            return
        if cancel and not self._ended and self._conn.alive():
            try:
                await self._conn.call(p.BATCH_CANCEL, {"batch": self.batch})
            except BackyardError:
                pass
        self._conn.unroute(self.batch)

    async def aclose(self) -> None:
        """Stop the batch and wait until nothing of it runs."""
        await self._close(cancel=True)

    async def __aenter__(self) -> AsyncBatchResults:
        return self

    async def __aexit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True) and self._conn is not None and not self._ended:
            self._conn.notify_request(p.BATCH_CANCEL, {"batch": self.batch})


@_taking(batch_options)
def run_batch_async(snippets: Iterable[Snippet] | AsyncIterable[Snippet], options: BatchOptions) -> AsyncBatchResults:
    """run_batch for asyncio: ``async for r in run_batch_async(...)``.

    Takes the same options as run_batch; snippets may also be an async
    iterable. Use it as ``async with run_batch_async(...) as results:`` to
    stop the batch when the block is left early.
    """
    return AsyncBatchResults(snippets, options)


__all__ = [
    "DEFAULT_WINDOW",
    "AsyncBatchResults",
    "BatchProgress",
    "BatchResults",
    "Snippet",
    "BatchOptions",
    "batch_options",
    "run_batch",
    "run_batch_async",
    "to_snippet",
]
