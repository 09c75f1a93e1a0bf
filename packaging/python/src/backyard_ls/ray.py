"""Batches over a Ray cluster: ``pip install 'backyard-ls[ray]'``.

    import ray
    from backyard_ls.ray import run_batch

    ray.init(address="auto")
    for r in run_batch(completions, backend="monty", timeout=5):
        print(r.id, r.status, r.value)

``run_batch`` takes run_batch's snippets and options and yields the same
Executions, but the snippets run on every node of the cluster: one Ray
actor per node (or per ``cpus_per_actor`` CPUs) owns one long-lived lane, a
``backyard-ls batch`` process (Monty workers and fork-server containers
that stay up), and the driver hands out chunks of snippets to the actors.
A chunk's records travel as the JSON Lines the batch writes, decoded by
the driver when a result is first read. An actor or a node that dies has its unfinished
chunks run again on a live actor, so every snippet yields exactly one
result. ``Pool`` keeps the actors (and their warm lanes) across batches.

``SnippetScorer`` is a callable class for Ray Data's ``map_batches``: it
runs a batch's code column on its actor's lane and adds the results'
columns.

Ray is imported when first needed; the rest of backyard_ls never imports
it.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from itertools import repeat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from queue import SimpleQueue
from types import TracebackType
from typing import Any

from . import _protocol as p
from ._binary import find_binary
from ._client import DIED, NOTIFY, Connection, Item, Queue, connection, encode_params, encode_string, error_from, popen_options
from ._common import Backend
from ._errors import BackendUnavailable, BackyardError, BadArgument, ServerDied
from ._execution import Execution, LazyExecution, RawRecords, status_of
from .batch import DEFAULT_WINDOW, BatchProgress, ProgressCallback, Snippet, _length, batch_options, to_snippet

DEFAULT_CHUNK = 1024
"""Snippets per chunk: what one actor call runs."""

_PART_BYTES = 64 << 10
"""A chunk's records come back in parts of about this many bytes."""

_DEPTH = 3
"""Chunks in flight per actor: one running, the next ones already queued in its lane."""

_TAIL_CHUNK = 32
"""The smallest chunk a batch's end is cut into."""

_FIRST_CHUNK = 256
"""Snippets per chunk until the batch's rate is known."""

_CHUNK_S = 0.25
"""Seconds of a lane's time a chunk aims at."""

_STOP: Item = ("stop",)

_COALESCE_BYTES = 1 << 15
_COALESCE_S = 0.004
"""A raw lane reading less than _COALESCE_BYTES waits this long before reading again."""


def _ray() -> Any:
    """The ray module (typed Any: its stubs are not everywhere)."""
    try:
        return importlib.import_module("ray")
    except ImportError as e:
        raise BackendUnavailable("backyard_ls.ray needs Ray: pip install 'backyard-ls[ray]'") from e


# The lane: what runs in an actor (or a Ray Data worker).


class _Chunk:
    __slots__ = ("records", "left", "done", "error")

    def __init__(self, n: int) -> None:
        self.records: list[Any] = [None] * n
        self.left = n
        self.done = threading.Event()
        self.error: BaseException | None = None


class Lane:
    """One batch of this process's ``backyard-ls api``, open until close():
    its Monty workers and containers stay up between chunks. Chunks may be
    run from several threads at once; each gets its own records back."""

    def __init__(self, params: p.BatchOpenArgs, binary: str | os.PathLike[str] | None = None) -> None:
        self._params: p.BatchOpenArgs = {**params, "ordered": False}
        self._binary = binary
        self._lock = threading.Lock()
        self._conn: Connection | None = None
        self._q: Queue = SimpleQueue()
        self._slots: dict[int, tuple[_Chunk, int]] = {}
        self._next = 0
        self._batch = ""
        self._closed = False
        with self._lock:
            self._open()

    def _open(self) -> None:
        conn = connection(self._binary)
        q: Queue = SimpleQueue()
        self._batch = conn.call(p.BATCH_OPEN, self._params)["batch"]
        conn.route(self._batch, q)
        self._conn, self._q, self._next, self._slots = conn, q, 0, {}
        threading.Thread(target=self._pump, args=(conn, q, self._slots), name="backyard-lane", daemon=True).start()

    def _pump(self, conn: Connection, q: Queue, slots: dict[int, tuple[_Chunk, int]]) -> None:
        """Hands each result to the chunk it belongs to (this thread reads
        the server's output for the whole process)."""
        while True:
            item = conn.next_item(q)
            if item is _STOP:
                return
            if item[0] == NOTIFY and item[1] == p.BATCH_RESULTS:
                params = item[2]
                for r in params["results"]:
                    slot = slots.pop(r["index"], None)
                    if slot is None:
                        continue
                    c, i = slot
                    c.records[i] = r["execution"]
                    c.left -= 1
                    if c.left == 0:
                        c.done.set()
                if params.get("error"):
                    # The batch failed as a whole (e.g. no container engine): its kind kept.
                    self._fail(slots, error_from({"message": params["error"], "data": {"kind": params.get("error_kind", "internal")}}))
                    return
            elif item[0] == DIED:
                self._fail(slots, ServerDied(f"backyard-ls exited: {item[1]}"))
                return

    def _fail(self, slots: dict[int, tuple[_Chunk, int]], e: BaseException) -> None:
        with self._lock:
            if self._slots is slots:
                self._conn = None  # the next chunk opens a new batch
            chunks = {c for c, _ in slots.values()}
            slots.clear()
        for c in chunks:
            c.error = e
            c.done.set()

    def run_json(self, snippets_json: str, n: int) -> list[p.Execution]:
        """The records of n snippets given as batch_add's JSON array items
        (without the brackets), in their order.

        Raises:
            ServerDied: the process died under the chunk.
            BackyardError: the batch failed (e.g. no container engine).
        """
        c = _Chunk(n)
        if n == 0:
            return []
        with self._lock:
            if self._closed:
                raise BackyardError("the lane is closed")
            if self._conn is None or not self._conn.alive():
                self._open()
            conn = self._conn
            assert conn is not None
            base = self._next
            self._next += n
            for i in range(n):
                self._slots[base + i] = (c, i)
            conn.notify_json(p.BATCH_ADD, '{"batch":%s,"snippets":[%s]}' % (encode_string(self._batch), snippets_json))
        c.done.wait()
        if c.error is not None:
            raise c.error
        return c.records

    def run(self, snippets: Sequence[Snippet]) -> list[p.Execution]:
        """run_json for snippets as run_batch takes them (ids ignored)."""
        return self.run_json(encode_chunk(snippets)[1], len(snippets))

    def close(self) -> None:
        """Ends the batch: its workers and containers stop."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            conn, q, slots = self._conn, self._q, self._slots
            self._conn = None
        if conn is not None and conn.alive():
            try:
                conn.call(p.BATCH_CANCEL, {"batch": self._batch})
            except BackyardError:
                pass
            conn.unroute(self._batch, q)
        q.put(_STOP)
        # Chunks still waiting get no more results.
        self._fail(slots, BackyardError("the lane was closed"))


def encode_chunk(snippets: Iterable[Snippet], start: int = 0) -> tuple[list[Any], str]:
    """The ids (default: the index from start) and the JSON of snippets, as
    batch_add's array items.

    Raises:
        BadArgument: one is not a snippet.
    """
    ids: list[Any] = []
    out: list[str] = []
    for i, item in enumerate(snippets, start):
        if type(item) is str:
            ids.append(i)
            out.append('{"code":%s}' % encode_string(item))
        else:
            sid, sn = to_snippet(item, i)
            ids.append(sid)
            out.append(encode_params(p.BATCH_ADD, sn))
    return ids, ",".join(out)


class _RawChunk:
    __slots__ = ("parts", "left", "done", "error")

    def __init__(self, n: int) -> None:
        self.parts: list[bytes] = []
        self.left = n
        self.done = threading.Event()
        self.error: BaseException | None = None


# batch_open's params as `backyard-ls batch` flags.
_FLAGS = (
    ("backend", "--backend"), ("parallel", "--parallel"), ("timeout_s", "--timeout"), ("memory_mb", "--memory"),
    ("recursion_limit", "--recursion-limit"), ("max_output_bytes", "--max-output-bytes"), ("image", "--image"),
    ("runtime", "--runtime"), ("monty", "--monty"),
)


def batch_args(params: p.BatchOpenArgs) -> list[str]:
    """The `backyard-ls batch` arguments of batch_open's params (its records
    in input order, stopped with the process that starts it)."""
    args = ["batch", "--stop-with-parent"]
    for key, flag in _FLAGS:
        v = params.get(key)
        if v is not None:
            args += [flag, str(v)]
    if params.get("preload"):
        args += ["--preload", ",".join(params["preload"])]
    return args


class RawLane:
    """One ``backyard-ls batch`` process of this process, open until
    close(): its Monty workers and containers stay up between chunks.
    Chunks go in as JSON Lines and their records come back as the JSON
    Lines the batch writes, in input order, never decoded here: an actor
    only passes bytes through. Chunks may be run from several threads at
    once; each gets its own records back.

    The batch runs with --stop-with-parent: an actor that is killed takes
    its lane (workers, containers) with it."""

    def __init__(self, params: p.BatchOpenArgs, binary: str | os.PathLike[str] | None = None) -> None:
        self._params = params
        self._binary = binary
        self._args = [find_binary(binary), *batch_args(params)]
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._pending: deque[_RawChunk] = deque()
        self._closed = False
        # The batch starts (and its options are checked) before the lane
        # counts as open: an empty snippet goes through.
        try:
            self.run_raw(b'{"code":""}\n', 1)
        except BackyardError as e:
            self.close()
            raise self._open_error(e) from None

    def _open_error(self, e: BackyardError) -> BackyardError:
        """Why the batch did not start, as the API says it (its kind kept):
        an API lane is opened with the same options to ask."""
        try:
            Lane(self._params, self._binary).close()
        except BackyardError as api:
            return api
        return e

    def _open(self) -> subprocess.Popen[bytes]:
        err = tempfile.TemporaryFile()
        try:
            proc = subprocess.Popen(self._args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                    bufsize=0, close_fds=True, **popen_options())
        except OSError as e:
            err.close()
            raise ServerDied(f"cannot start {self._args[0]}: {e}") from e
        pending: deque[_RawChunk] = deque()
        self._proc, self._pending = proc, pending
        threading.Thread(target=self._pump, args=(proc, pending, err), name="backyard-raw-lane", daemon=True).start()
        return proc

    def _pump(self, proc: subprocess.Popen[bytes], pending: deque[_RawChunk], err: Any) -> None:
        """Cuts the batch's output into the chunks' records, in order."""
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except OSError:
                data = b""
            if not data:
                break
            at = 0
            end = len(data)
            while at < end:
                if not pending:  # output nobody asked for: not a record of ours
                    break
                c = pending[0]
                k = data.count(b"\n", at)
                if k < c.left:  # all of it is the head chunk's
                    c.parts.append(data[at:] if at else data)
                    c.left -= k
                    break
                nl = at - 1
                for _ in range(c.left):
                    nl = data.find(b"\n", nl + 1)
                c.left = 0
                c.parts.append(data[at:nl + 1])
                at = nl + 1
                pending.popleft()
                c.done.set()
            if len(data) < _COALESCE_BYTES and pending:
                # The batch writes as its records come: a short read means
                # the next one is a record or two away. Letting them pile
                # up for a moment costs a wake-up on either side per read,
                # not per record (the pipe holds what comes meanwhile).
                time.sleep(_COALESCE_S)
        code = proc.wait()
        err.seek(0)
        text = err.read().decode(errors="replace").strip()
        err.close()
        proc.stdout.close()
        why: BackyardError
        lines = [ln.removeprefix("backyard-ls batch: ") for ln in text.splitlines()]
        if self._closed:
            why = BackyardError("the lane was closed")
        elif code == 2 and lines:
            why = BackyardError(lines[-1])  # the batch failed as a whole (e.g. no container engine)
        else:
            why = ServerDied(f"backyard-ls batch exited with status {code}" + (f": {lines[-1]}" if lines else ""))
        with self._lock:
            if self._proc is proc:
                self._proc = None  # the next chunk starts a new batch
        while pending:
            c = pending.popleft()
            c.error = why
            c.done.set()

    def run_raw(self, lines: bytes, n: int) -> bytes:
        """The records of n snippets given as JSON Lines (`backyard-ls
        batch`'s input, each ending in a newline), as the JSON Lines of
        their records, in their order.

        Raises:
            ServerDied: the process died under the chunk.
            BackyardError: the batch failed (e.g. no container engine).
        """
        if n == 0:
            return b""
        c = _RawChunk(n)
        with self._lock:
            if self._closed:
                raise BackyardError("the lane is closed")
            proc = self._proc
            if proc is None or proc.poll() is not None:
                proc = self._open()
            assert proc.stdin is not None
            self._pending.append(c)
            view = memoryview(lines)
            try:
                while view:
                    view = view[os.write(proc.stdin.fileno(), view):]
            except OSError as e:
                # The process is gone: its pump fails the chunk.
                proc.kill()
                if not c.done.wait(30):
                    raise ServerDied(f"backyard-ls batch is gone: {e}") from e
        c.done.wait()
        if c.error is not None:
            raise c.error
        return b"".join(c.parts)

    def close(self) -> None:
        """Stops the batch as Ctrl+C does (its workers and containers stop)
        and waits for it."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            # Ctrl+C (on Windows a break event: the process has its own group).
            if sys.platform == "win32":
                proc.send_signal(signal.CTRL_BREAK_EVENT)
            else:
                proc.send_signal(signal.SIGINT)
        try:
            assert proc.stdin is not None
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def encode_lines(snippets: Iterable[Snippet], start: int = 0) -> tuple[list[Any], bytes]:
    """The ids (default: the index from start) and the JSON Lines of
    snippets, as `backyard-ls batch` reads them.

    Raises:
        BadArgument: one is not a snippet.
    """
    items = snippets if isinstance(snippets, list) else list(snippets)
    if set(map(type, items)) == {str}:
        # Code alone, the common case: no Python loop per snippet.
        return list(range(start, start + len(items))), "".join(map(_CODE_LINE.__mod__, map(encode_string, items))).encode()
    ids: list[Any] = []
    out: list[str] = []
    for i, item in enumerate(items, start):
        if type(item) is str:
            ids.append(i)
            out.append(_CODE_LINE % encode_string(item))
        else:
            sid, sn = to_snippet(item, i)
            ids.append(sid)
            out.append(encode_params(p.BATCH_ADD, sn) + "\n")
    return ids, "".join(out).encode()


_CODE_LINE = '{"code":%s}\n'


def decode_lines(data: bytes) -> list[p.Execution]:
    """The records of a chunk's JSON Lines (one parse for them all)."""
    if not data:
        return []
    return json.loads(b"[" + data[:-1].replace(b"\n", b",") + b"]")  # type: ignore[no-any-return]


class _Records(RawRecords):
    """One chunk's records as the lines the batch wrote, parsed together
    (one parse) when a result first needs more than its status or value."""

    __slots__ = ()

    def parse(self) -> list[p.Execution]:
        return json.loads(b"[" + b",".join(self.pieces) + b"]")  # type: ignore[no-any-return]


_STATUS_KEY = b',"status":"'
# A batch record opens with its id (the line's number: the lanes' input
# has no ids), its range and executionCount, numbers all, then its status.
_STATUS_RE = re.compile(rb'"executionCount":\d+,"status":"([a-z]+)"')
_ALL_OK = b'"executionCount":1,"status":"ok"'
_STDERR = b',"stderr":"'
_RESULT = b',"result":{"text":"'


def _statuses(data: bytes, lines: list[bytes]) -> Iterable[p.Status]:
    """The status of each of a chunk's records, read off its lines.

    ``,"status":"`` is a key wherever it is (see _LineExecution), and a
    line's first is its record's own (only numbers come before it). When
    the chunk holds no other (a value nested in a record could), the
    chunk is read at once: its records are mostly all ok."""
    n = len(lines)
    if data.count(_STATUS_KEY) == n:
        if data.count(_ALL_OK) == n:
            return repeat("ok", n)
        found = _STATUS_RE.findall(data)
        if len(found) == n:
            return list(map(bytes.decode, found))  # type: ignore[arg-type]
    return list(map(status_of, lines))


class _LineExecution(LazyExecution):
    """A LazyExecution of a record still in its chunk's JSON Lines: its
    status read off its line before (for the whole chunk at once), and its
    value too when it is a string without escapes.

    A batch record's keys come in a fixed order: its id, range and
    executionCount (numbers all), status, stdout, stderr, then its result
    when it has one. The only unescaped quote of a JSON string is the one
    that ends it, and no letter follows that: so ``,"stderr":"`` is a key
    wherever it is, the line's first is the record's own, and a stderr
    without backslashes ends at the next quote.
    """

    __slots__ = ("status",)

    def __init__(self, chunk: _Records, k: int, id: Any, status: p.Status) -> None:
        # LazyExecution's fields, set here rather than by its __init__: one call less a record.
        self._src = chunk
        self._k = k
        self.id = id
        self.status = status  # type: ignore[misc]

    @property
    def value(self) -> str | None:
        chunk = self._src
        if chunk.records is None:
            line = chunk.pieces[self._k]
            at = line.find(_STDERR) + len(_STDERR)
            end = line.find(b'"', at)  # the end of stderr, when it has no escapes
            if line.find(b"\\", at, end) < 0:
                if line.startswith(_RESULT, end + 1):
                    at = end + 1 + len(_RESULT)
                    end = line.find(b'"', at)
                    if line.find(b"\\", at, end) < 0:
                        return line[at:end].decode()
                elif not line.startswith(b',"result":', end + 1):
                    return None
        return super().value


class _LaneActor:
    """The Ray actor: one RawLane on its node."""

    def __init__(self, params: p.BatchOpenArgs, binary: str | None) -> None:
        # A lane that cannot open is ready()'s error, raised as itself (an
        # error of __init__ would reach the driver as Ray's traceback text).
        self.lane: RawLane | None = None
        self.error: BackyardError | None = None
        try:
            self.lane = RawLane(params, binary)
        except BackyardError as e:
            self.error = e

    def _lane(self) -> RawLane:
        if self.lane is None:
            assert self.error is not None
            raise self.error
        return self.lane

    def ready(self) -> tuple[str, int]:
        """Its node's id and its pid, once the lane is open."""
        self._lane()
        return _ray().get_runtime_context().get_node_id(), os.getpid()

    def run(self, lines: bytes, n: int, parts: int = 1) -> bytes | tuple[bytes, ...]:
        """The records of n snippets as run_raw gives them, cut into parts
        pieces of about the same size (at any byte: the driver joins them)
        so that each stays small enough to travel inside Ray's reply."""
        data = self._lane().run_raw(lines, n)
        if parts <= 1:
            return data
        size = -(-len(data) // parts)
        return tuple(data[i * size:(i + 1) * size] for i in range(parts))

    def close(self) -> None:
        if self.lane is not None:
            self.lane.close()


_remote_lock = threading.Lock()
_remote: Any = None


def _actor_class() -> Any:
    global _remote
    with _remote_lock:
        if _remote is None:
            _remote = _ray().remote(_LaneActor)
        return _remote


# The driver.


@dataclass
class Actor:
    """An actor of a Pool: one lane on one node."""

    handle: Any
    """Its Ray actor handle."""
    node: str
    """The id of its node."""
    inflight: int = 0
    """Chunks handed to it and not yet back."""
    alive: bool = True
    chunks: int = 0
    """Chunks it ran to the end."""
    ready: bool = True
    """Its lane is open (run_batch hands chunks to actors still starting)."""


@dataclass
class _Work:
    """A chunk of the input: its place, its snippets' ids and JSON Lines."""

    seq: int
    ids: list[Any]
    body: bytes
    tries: int = 0
    results: list[Execution] = field(default_factory=list)


class Pool:
    """Ray actors that each own one lane of their node, kept for several
    batches (their Monty workers and containers stay warm). Needs a
    running Ray (``ray.init``; started here with the default arguments if
    it is not).

    Args:
        backend, parallel, preload, timeout, memory_mb, recursion_limit,
            max_output_bytes, image, runtime, monty: run_batch's, for
            every lane; ``parallel`` is per actor (default: the CPUs of
            the actor, ``cpus_per_actor`` or its node's).
        binary: the ``backyard-ls`` binary on the nodes (default: each
            node's find_binary()).
        cpus_per_actor: one actor per this many CPUs of each node (default:
            one actor per node).
        num_cpus: the CPUs each actor reserves in Ray (default
            ``cpus_per_actor``, else 1).
        nodes: the node ids to use (default: every alive node with CPUs).
        start_timeout: seconds to wait for the actors to start; those not
            started by then are dropped.

    Raises:
        BadArgument: an option is not acceptable.
        BackendUnavailable: Ray is missing, or no actor started within
            start_timeout (the message says why).
        BackyardError: no lane could open: the lane's own error (e.g.
            BadArgument for a ``monty`` that is not there).
    """

    _wait_all = True
    # Pool() returns once every actor's lane is open (or start_timeout);
    # run_batch's own pool once the first is.

    def __init__(
        self,
        *,
        backend: Backend | None = None,
        parallel: int | None = None,
        preload: Iterable[str] | None = None,
        timeout: float | None = None,
        memory_mb: int | None = None,
        recursion_limit: int | None = None,
        max_output_bytes: int | None = None,
        image: str | None = None,
        runtime: str | None = None,
        binary: str | os.PathLike[str] | None = None,
        monty: str | os.PathLike[str] | None = None,
        cpus_per_actor: float | None = None,
        num_cpus: float | None = None,
        nodes: Sequence[str] | None = None,
        start_timeout: float = 60.0,
    ) -> None:
        opts = batch_options(
            backend=backend, parallel=parallel, preload=preload, timeout=timeout, memory_mb=memory_mb,
            recursion_limit=recursion_limit, max_output_bytes=max_output_bytes, image=image, runtime=runtime, monty=monty,
        )
        for name, v in (("cpus_per_actor", cpus_per_actor), ("num_cpus", num_cpus)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or (v == 0 and name == "cpus_per_actor")):
                raise BadArgument(f"{name} must be a number of CPUs (cpus_per_actor > 0, num_cpus ≥ 0), got {v!r}")
        self._params = opts.params
        self._binary = os.fspath(binary) if binary is not None else None
        self._cpus_per_actor = cpus_per_actor
        self._num_cpus = num_cpus if num_cpus is not None else (cpus_per_actor if cpus_per_actor is not None else 1)
        self._nodes = list(nodes) if nodes is not None else None
        self._start_timeout = start_timeout
        self._lock = threading.Lock()
        self._closed = False
        self.actors: list[Actor] = []
        """The live actors (node id, handle)."""
        self._starting: dict[Any, Actor] = {}  # ready() refs of actors not yet ready
        self._start_deadline = 0.0
        self._ray = _ray()
        if not self._ray.is_initialized():
            self._ray.init()
        self._start()

    def _start(self) -> None:
        """Starts the actors on the alive nodes and waits until their lanes
        are open."""
        ray = self._ray
        strategy = importlib.import_module("ray.util.scheduling_strategies").NodeAffinitySchedulingStrategy
        cls = _actor_class()
        want = set(self._nodes) if self._nodes is not None else None
        made: list[Actor] = []
        for n in ray.nodes():
            cpus = float(n.get("Resources", {}).get("CPU", 0))
            if not n.get("Alive") or (want is not None and n["NodeID"] not in want) or (want is None and cpus <= 0):
                continue
            per = self._cpus_per_actor
            count = max(1, int(cpus // per)) if per else 1
            params = self._params.copy()
            if "parallel" not in params:
                params["parallel"] = max(1, int(per if per else cpus))
            for _ in range(count):
                h = cls.options(
                    num_cpus=self._num_cpus,
                    max_concurrency=_DEPTH + 2,
                    scheduling_strategy=strategy(n["NodeID"], soft=False),
                ).remote(params, self._binary)
                made.append(Actor(h, n["NodeID"]))
        if not made:
            raise BackendUnavailable("no alive Ray node with CPUs to run a lane on")
        refs = {a.handle.ready.remote(): a for a in made}
        deadline = time.monotonic() + self._start_timeout
        pending = list(refs)
        errors: list[BaseException] = []
        while pending:
            done, pending = ray.wait(pending, num_returns=len(pending) if self._wait_all else 1,
                                     timeout=max(0.0, deadline - time.monotonic()))
            for ref in done:
                try:
                    ray.get(ref)
                    self.actors.append(refs[ref])
                except Exception as e:  # noqa: BLE001 - reported below when no actor started
                    errors.append(getattr(e, "cause", None) or e)
                    ray.kill(refs[ref].handle)
            if not done or self.actors:
                break
        if self.actors and not self._wait_all:
            # The others take chunks before their lanes open (Ray queues
            # them): the batch starts with the first lane.
            for ref in pending:
                refs[ref].ready = False
                self.actors.append(refs[ref])
                self._starting[ref] = refs[ref]
            self._start_deadline = deadline
            pending = []
        for ref in pending:
            ray.kill(refs[ref].handle)
        if not self.actors:
            lane_errors = [e for e in errors if isinstance(e, BackyardError)]
            if lane_errors:
                raise lane_errors[0]  # as the lane raised it (BadArgument, BackendUnavailable, …)
            why = str(errors[0]) if errors else (
                f"none started within {self._start_timeout:g} s (each asks for num_cpus={self._num_cpus:g} on its node; "
                "a smaller num_cpus lets lanes share busy nodes)"
            )
            raise BackendUnavailable(f"no backyard-ls lane started on the Ray cluster: {why}")

    def run_batch(
        self,
        snippets: Iterable[Snippet],
        /,
        *,
        ordered: bool = True,
        on_progress: ProgressCallback | None = None,
        window: int = DEFAULT_WINDOW,
        chunk_size: int = DEFAULT_CHUNK,
        max_retries: int = 3,
    ) -> RayBatchResults:
        """Run snippets on the pool's actors and iterate over their results
        (run_batch's, with the pool's lanes).

        Args:
            snippets: as run_batch's.
            ordered: results in input order (default); False gives each
                chunk's results as the chunk ends.
            on_progress: called with a BatchProgress as chunks end.
            window: snippets handed out but not yet yielded, at most
                (rounded to whole chunks).
            chunk_size: snippets per actor call at most (default 1024;
                chunks aim at about 250 ms of a lane's time, and are cut
                finer when the window or a batch of known length would
                not give every actor a few chunks).
            max_retries: times one chunk is run again after its actor
                died, before run_batch raises.
        """
        for name, v in (("window", window), ("chunk_size", chunk_size)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise BadArgument(f"{name} must be a whole number ≥ 1, got {v!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise BadArgument(f"max_retries must be a whole number ≥ 0, got {max_retries!r}")
        if self._closed:
            raise BackyardError("the pool is closed")
        return RayBatchResults(self, snippets, ordered, on_progress, window, chunk_size, max_retries, False)

    def _live(self) -> list[Actor]:
        return [a for a in self.actors if a.alive]

    def _lost(self, a: Actor) -> None:
        """An actor died (or cannot be reached): it gets no more work."""
        if a.alive:
            a.alive = False
            try:
                self._ray.kill(a.handle)
            except Exception:  # noqa: BLE001 - already gone
                pass
        if not self._live():
            # Every lane is gone: start new ones on the nodes still alive.
            self.actors = []
            self._start()

    def close(self) -> None:
        """Stops the actors (their lanes' workers and containers stop)."""
        if self._closed:
            return
        self._closed = True
        live = self._live()
        try:
            self._ray.wait([a.handle.close.remote() for a in live], num_returns=len(live), timeout=30)
        except Exception:  # noqa: BLE001 - the kill below ends them anyway
            pass
        for a in live:
            a.alive = False
            try:
                self._ray.kill(a.handle)
            except Exception:  # noqa: BLE001
                pass

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class _BatchPool(Pool):
    """run_batch's own pool: the batch starts on the first lane that opens,
    the others take their chunks as they open."""

    _wait_all = False


class RayBatchResults(Iterator[Execution]):
    """The results of a Ray batch, as an iterator (and a context manager).
    Closing it stops handing out chunks (and, for run_batch, stops its
    actors)."""

    def __init__(
        self,
        pool: Pool,
        snippets: Iterable[Snippet],
        ordered: bool,
        on_progress: ProgressCallback | None,
        window: int,
        chunk_size: int,
        max_retries: int,
        owns_pool: bool,
    ) -> None:
        self.pool = pool
        """The pool whose actors run the batch."""
        self._pool = pool
        self._ray = pool._ray
        self._items = iter(snippets)
        self._ordered = ordered
        self._on_progress = on_progress
        self._total = _length(snippets)
        slots = max(1, len(pool._live())) * _DEPTH
        # Chunks small enough for every actor to have its _DEPTH of them
        # within the window (many actors get smaller chunks).
        self._chunk = min(chunk_size, max(_TAIL_CHUNK, window // slots))
        if self._total is not None:
            # A short batch is cut finer, so that every actor gets a share.
            self._chunk = max(1, min(self._chunk, -(-self._total // slots)))
        self._max_chunks = max(1, window // self._chunk)
        self._max_retries = max_retries
        self._owns_pool = owns_pool
        self._read = 0  # snippets taken from the input
        self._seq = 0  # chunks made
        self._exhausted = False
        self._retry: deque[_Work] = deque()
        self._inflight: dict[Any, tuple[_Work, Actor, list[Any]]] = {}
        self._record_bytes = 256  # a record's size in bytes, as the last chunk had them
        self._finished: dict[int, _Work] = {}  # ended chunks not yet yielded (ordered)
        self._next_seq = 0  # the chunk to yield next (ordered)
        self._ready: deque[Execution] = deque()
        self._done = 0
        self._failed = 0
        self._start = time.monotonic()
        self._closed = False
        self.retried = 0
        """Chunks run again because their actor died."""

    def __iter__(self) -> RayBatchResults:
        return self

    def __next__(self) -> Execution:
        while not self._ready:
            if self._closed:
                raise StopIteration
            try:
                self._send()
                if not self._inflight:
                    self.close()
                    raise StopIteration
                self._wait()
            except BaseException:
                self.close()
                raise
        return self._ready.popleft()

    def _make(self) -> _Work | None:
        if self._exhausted:
            return None
        actors = max(1, len(self._pool._live()))
        # About _CHUNK_S of a lane's time, at the rate the batch has run so
        # far: quick snippets go in large chunks (fewer calls per snippet),
        # slow ones in small chunks that keep the lanes evenly busy.
        if self._done:
            per_lane = self._done / max(1e-3, time.monotonic() - self._start) / actors
            size = min(self._chunk, max(_TAIL_CHUNK, int(per_lane * _CHUNK_S)))
        else:
            size = min(self._chunk, _FIRST_CHUNK)
        if self._total is not None:
            # The last chunks are cut finer, so that the lanes end together
            # instead of one running a whole chunk while the others idle.
            share = -(-(self._total - self._read) // (actors * _DEPTH))
            size = max(min(size, _TAIL_CHUNK), min(size, share))
        batch: list[Snippet] = []
        for item in self._items:
            batch.append(item)
            if len(batch) == size:
                break
        else:
            self._exhausted = True
        if not batch:
            return None
        ids, body = encode_lines(batch, self._read)
        self._read += len(batch)
        w = _Work(self._seq, ids, body)
        self._seq += 1
        return w

    def _send(self) -> None:
        """Gives work to every actor with room, retried chunks first."""
        while True:
            live = [a for a in self._pool._live() if a.inflight < _DEPTH]
            if not live:
                return
            if self._retry:
                w = self._retry.popleft()
            else:
                # Bounded: chunks made but not yet yielded.
                if self._seq - self._next_seq >= self._max_chunks:
                    return
                made = self._make()
                if made is None:
                    return
                w = made
            a = min(live, key=lambda x: x.inflight)
            n = len(w.ids)
            # Parts small enough to come back inside Ray's reply instead
            # of through the object store (its inline limit is 100 KiB).
            parts = max(1, -(-n * self._record_bytes // _PART_BYTES))
            if parts == 1:
                refs = [a.handle.run.remote(w.body, n)]
            else:
                refs = a.handle.run.options(num_returns=parts).remote(w.body, n, parts)
            a.inflight += 1
            self._inflight[refs[0]] = (w, a, refs)

    def _wait(self) -> None:
        ray = self._ray
        exc = importlib.import_module("ray.exceptions")
        starting = self._pool._starting
        if starting:
            left = self._pool._start_deadline - time.monotonic()
            done, _ = ray.wait([*self._inflight, *starting], num_returns=1, timeout=max(0.0, left))
            if not done and left <= 0:
                # Not started in time: their chunks come back as errors
                # and run on the others.
                for ref, a in list(starting.items()):
                    del starting[ref]
                    self._pool._lost(a)
        else:
            done, _ = ray.wait(list(self._inflight), num_returns=1)
        for ref in done:
            if ref in starting:
                a = starting.pop(ref)
                try:
                    ray.get(ref)
                    a.ready = True
                except Exception:  # noqa: BLE001 - its lane did not open: its chunks run on the others
                    self._pool._lost(a)
                continue
            w, a, refs = self._inflight.pop(ref)
            a.inflight -= 1
            try:
                got = ray.get(refs)
                records = got[0] if len(got) == 1 else b"".join(got)
            except (exc.RayActorError, exc.WorkerCrashedError, exc.ObjectLostError, exc.NodeDiedError) as e:
                self._redo(w, a, e, lost=True)
                continue
            except exc.RayTaskError as e:
                cause = getattr(e, "cause", None)
                if isinstance(cause, ServerDied) or not a.ready:
                    # Its lane died, or never opened (the actor is dropped).
                    self._redo(w, a, cause or e, lost=not a.ready)
                    continue
                self.close()
                if isinstance(cause, BackyardError):
                    raise cause from e
                raise
            a.chunks += 1
            a.ready = True
            self._took(w, records)

    def _redo(self, w: _Work, a: Actor, e: BaseException, lost: bool) -> None:
        w.tries += 1
        self.retried += 1
        if w.tries > self._max_retries:
            self.close()
            raise ServerDied(f"chunk of snippets {w.ids[0]!r}…{w.ids[-1]!r} lost its lane {w.tries} times: {e}") from e
        self._retry.append(w)
        if lost:
            # Its other chunks are lost too: they come back as errors of
            # their own refs, and are retried then.
            try:
                self._pool._lost(a)
            except BackyardError:
                self.close()
                raise

    def _took(self, w: _Work, data: bytes) -> None:
        n = len(w.ids)
        lines = data.split(b"\n")
        if lines.pop() != b"" or len(lines) != n:
            self.close()
            raise BackyardError(f"a lane gave {len(lines)} records for a chunk of {n} snippets")
        self._record_bytes = max(64, len(data) // n)
        results: list[Execution] = list(map(_LineExecution, repeat(_Records(lines), n), range(n), w.ids, _statuses(data, lines)))
        self._done += n
        if self._on_progress is not None:
            self._failed += sum(1 for r in results if r.status != "ok")
        if self._ordered:
            w.results = results
            self._finished[w.seq] = w
            while self._next_seq in self._finished:
                self._ready.extend(self._finished.pop(self._next_seq).results)
                self._next_seq += 1
        else:
            self._ready.extend(results)
            self._next_seq += 1
        if self._on_progress is not None:
            self._on_progress(BatchProgress(self._done, self._failed, self._total, time.monotonic() - self._start))

    def close(self) -> None:
        """Stop handing out chunks (the ones running end on their own)."""
        if self._closed:
            return
        self._closed = True
        for ref in list(self._inflight):
            try:
                self._ray.cancel(ref)
            except Exception:  # noqa: BLE001 - actor calls may not be cancellable
                pass
        self._inflight.clear()
        if self._owns_pool:
            self._pool.close()

    def __enter__(self) -> RayBatchResults:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True):
            try:
                self.close()
            except Exception:  # noqa: BLE001 - Ray may be shutting down
                pass


def run_batch(
    snippets: Iterable[Snippet],
    /,
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
    cpus_per_actor: float | None = None,
    num_cpus: float | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    max_retries: int = 3,
    start_timeout: float = 60.0,
) -> RayBatchResults:
    """backyard_ls.run_batch over the Ray cluster: run independent snippets
    on one lane per node (or per ``cpus_per_actor`` CPUs) and iterate over
    their results.

    Takes run_batch's snippets and options (``parallel`` counts per actor)
    and Pool's placement options; the actors start here and stop when the
    iterator ends or is closed. An actor or node that dies has its
    unfinished chunks run again on a live actor: every snippet yields
    exactly one result (a snippet may run twice).

    Args:
        chunk_size: snippets per actor call at most (default 1024; see Pool.run_batch).
        max_retries: times one chunk is run again after losing its actor.

    Raises:
        BadArgument: an option or a snippet is not acceptable.
        BackendUnavailable: no Ray, or no lane could start.
        ServerDied: a chunk lost its lane more than max_retries times
            (raised by the iterator).
    """
    pool = _BatchPool(
        backend=backend, parallel=parallel, preload=preload, timeout=timeout, memory_mb=memory_mb,
        recursion_limit=recursion_limit, max_output_bytes=max_output_bytes, image=image, runtime=runtime,
        binary=binary, monty=monty, cpus_per_actor=cpus_per_actor, num_cpus=num_cpus, start_timeout=start_timeout,
    )
    try:
        results = pool.run_batch(snippets, ordered=ordered, on_progress=on_progress, window=window, chunk_size=chunk_size, max_retries=max_retries)
    except BaseException:
        pool.close()
        raise
    results._owns_pool = True
    return results


# Ray Data.

RESULT_COLUMNS = ("status", "stdout", "stderr", "value", "error", "exit_code", "duration_ms", "backend")
"""The columns SnippetScorer adds by default."""


class SnippetScorer:
    """A callable class for Ray Data's ``map_batches``: runs each row's code
    (the ``code_column``) on this worker's lane and returns the batch with
    the results' columns added::

        ds = ray.data.from_items([{"code": c} for c in completions])
        out = ds.map_batches(SnippetScorer, fn_constructor_kwargs={"backend": "monty"},
                             concurrency=2, num_cpus=0.5, batch_size=256)

    Columns (``columns`` picks them): ``status``, ``stdout``, ``stderr``,
    ``value`` (the trailing value's repr, or None), ``error`` (``"ENAME:
    message"``, or None), ``exit_code``, ``duration_ms``, ``backend``.
    The input columns are kept.

    Args:
        code_column: the column holding the code.
        columns: result columns to add (default RESULT_COLUMNS).
        prefix: put before each result column's name.
        **options: run_batch's lane options (``backend``, ``parallel``,
            ``timeout``, ``preload``, ``memory_mb``, …, ``binary``).
    """

    def __init__(
        self,
        code_column: str = "code",
        *,
        columns: Sequence[str] = RESULT_COLUMNS,
        prefix: str = "",
        backend: Backend | None = None,
        parallel: int | None = None,
        preload: Iterable[str] | None = None,
        timeout: float | None = None,
        memory_mb: int | None = None,
        recursion_limit: int | None = None,
        max_output_bytes: int | None = None,
        image: str | None = None,
        runtime: str | None = None,
        binary: str | os.PathLike[str] | None = None,
        monty: str | os.PathLike[str] | None = None,
    ) -> None:
        unknown = [c for c in columns if c not in RESULT_COLUMNS]
        if unknown:
            raise BadArgument(f"unknown result columns {unknown} (there are {', '.join(RESULT_COLUMNS)})")
        opts = batch_options(
            backend=backend, parallel=parallel, preload=preload, timeout=timeout, memory_mb=memory_mb,
            recursion_limit=recursion_limit, max_output_bytes=max_output_bytes, image=image, runtime=runtime, monty=monty,
        )
        self.code_column = code_column
        self.columns = tuple(columns)
        self.prefix = prefix
        self._lane = Lane(opts.params, binary)

    def __call__(self, batch: Any) -> dict[str, Any]:
        np = importlib.import_module("numpy")
        if isinstance(batch, Mapping):
            cols = dict(batch)
        elif hasattr(batch, "columns"):  # a pandas DataFrame or an Arrow table
            cols = {str(c): (batch[c].to_numpy() if hasattr(batch[c], "to_numpy") else batch[c]) for c in batch.columns}
        else:
            raise BadArgument(f"SnippetScorer takes a batch of columns, got {type(batch).__name__}")
        if self.code_column not in cols:
            raise BadArgument(f"the batch has no column {self.code_column!r} (it has {sorted(cols)})")
        codes = [str(c) for c in cols[self.code_column]]
        execs = [Execution(r) for r in self._lane.run(codes)]
        for c in self.columns:
            values: list[Any] = [_column(e, c) for e in execs]
            if c in ("status", "stdout", "stderr", "value", "error", "backend"):
                arr = np.empty(len(values), dtype=object)
                arr[:] = values
                cols[self.prefix + c] = arr
            else:
                cols[self.prefix + c] = np.asarray(values)
        return cols

    def __del__(self) -> None:
        lane = getattr(self, "_lane", None)
        if lane is not None:
            lane.close()


def _column(e: Execution, c: str) -> Any:
    if c == "error":
        err = e.error
        return str(err) if err is not None else None
    return getattr(e, c)


__all__ = [
    "DEFAULT_CHUNK", "RESULT_COLUMNS", "Actor", "Lane", "Pool", "RawLane", "RayBatchResults", "SnippetScorer",
    "batch_args", "decode_lines", "encode_chunk", "encode_lines", "run_batch",
]
