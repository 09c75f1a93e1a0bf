"""The connection to a ``backyard-ls api`` process, for threads.

One process serves every sandbox and batch of the program (per binary).
Requests go out as JSON-RPC lines. There is no reader thread: a thread that
waits for an answer reads the server's output itself, one message at a
time, while no other thread does (so a single-threaded program's call costs
no thread switch), keeps what is for itself and puts each other message in
the queue of the thread it is for. What the server sends while a request waits (output, a host function
call, batch results) goes to the queue of the sandbox's or batch's waiting
thread, which handles it: callbacks and host functions run on the thread
that called run().
"""

from __future__ import annotations

import atexit
import io
import itertools
import json
import json.scanner
import os
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from queue import SimpleQueue
from typing import Any, Final, cast

from . import _protocol as p
from ._binary import find_binary
from ._execution import RawRecords
from ._errors import (
    BackendUnavailable,
    BackyardError,
    BadArgument,
    RequestTooLarge,
    SandboxClosed,
    ServerDied,
)

# What a waiting thread's queue receives: (RESPONSE, message),
# (NOTIFY, method, params), (CALL, message), (DIED, exception), or (TURN,):
# the reading role is free, try for it.
RESPONSE: Final = 0
NOTIFY: Final = 1
CALL: Final = 2
DIED: Final = 3
TURN: Final = 4

NO_CELL: Final = '{"error":{"type":"RuntimeError","message":"no cell of this sandbox is waiting for a host function"}}'

Item = tuple[Any, ...]
Queue = SimpleQueue[Item]
_TURN: Item = (TURN,)

encode_json: Callable[[Any], str] = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode
"""Compact JSON; NaN and infinities are refused (ValueError), as JSON has none."""

encode_string: Callable[[str], str] = json.encoder.encode_basestring_ascii
"""A str as a JSON string (the C encoder's own function)."""


# The decoder's options as the scanner reads them (typeshed asks for a scanner).
_scan: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(cast(Any, json.JSONDecoder()))


def decode_line(line: bytes) -> Any:
    """The JSON message of one line of the server. The scanner is called
    at once: json.loads first guesses the encoding and matches whitespace
    with regular expressions, a good part of a small message's cost."""
    text = line.decode()
    try:
        msg, end = _scan(text, 0)
    except StopIteration:
        return json.loads(text)  # not JSON: raises its error
    if end != len(text) and not text[end:].isspace():
        return json.loads(text)  # more after the message: raises its error
    return msg


_RESULTS_HEAD = b'{"jsonrpc":"2.0","method":"batch_results","params":{"batch":"'
_RESULTS_KEY = b'","results":['
_RESULTS_TAIL = b"]}}\n"
_INDEX = b'{"index":'


class RawResults(RawRecords):
    """The results of a batch_results notification as the server's line,
    cut at the tab the server puts before each result, not parsed:
    ``pieces[k]`` is ``{"index":N,"execution":RECORD}`` and a comma or the
    line's end. The line is parsed when a record is first read beyond its
    status."""

    __slots__ = ("line",)

    def __init__(self, line: bytes, pieces: list[bytes]) -> None:
        super().__init__(pieces)
        self.line = line

    def parse(self) -> list[p.Execution]:
        results = decode_line(self.line)["params"]["results"]
        if len(results) != len(self.pieces):
            raise BackyardError(f"batch_results: {len(results)} results in a line cut into {len(self.pieces)}")
        self.line = b""
        return [r["execution"] for r in results]

    def index(self, k: int) -> int:
        """Result k's snippet index."""
        piece = self.pieces[k]
        return int(piece[len(_INDEX):piece.index(b",", len(_INDEX))])


def raw_results(line: bytes) -> tuple[str, RawResults] | None:
    """The batch and the results of a batch_results line the server cut
    at its tabs (api/batch.go), not parsed; None for any other line (one
    without results, or with an error: parsed as any message)."""
    if not line.startswith(_RESULTS_HEAD) or not line.endswith(_RESULTS_TAIL):
        return None
    pieces = line.split(b"\t")
    head = pieces[0]
    if len(pieces) < 2 or not head.endswith(_RESULTS_KEY) or not pieces[1].startswith(_INDEX):
        return None
    batch = head[len(_RESULTS_HEAD):-len(_RESULTS_KEY)]
    if b"\\" in batch or b'"' in batch:
        return None
    del pieces[0]
    return batch.decode(), RawResults(line, pieces)


def encode_params(method: str, params: Any) -> str:
    """params as JSON; what is not JSON-compatible is a BadArgument."""
    try:
        return encode_json(params)
    except (TypeError, ValueError, RecursionError) as e:
        raise BadArgument(f"{method}: not JSON-compatible: {e}") from e


def api_args() -> list[str]:
    """The command line after the binary: the API on stdio."""
    return ["api", "--stdio"]


def popen_options() -> dict[str, Any]:
    """Keeps the child out of the terminal's signals (Ctrl+C in the
    program's terminal must not stop the sandboxes' server)."""
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


def error_from(err: dict[str, Any]) -> BackyardError:
    """The exception of a JSON-RPC error answer of the API."""
    message = str(err.get("message", "error"))
    data = err.get("data")
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind == "bad_argument":
        return BadArgument(message)
    if kind == "too_large":
        return RequestTooLarge(message)
    if kind == "backend_unavailable":
        return BackendUnavailable(message)
    if kind == "closed":
        return SandboxClosed(message)
    return BackyardError(message)


class Connection:
    """A running ``backyard-ls api`` process, shared by the program's threads."""

    def __init__(self, binary: str, extra_args: Sequence[str] = ()) -> None:
        self.binary = binary
        try:
            self._proc = subprocess.Popen(
                [binary, *api_args(), *extra_args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                bufsize=0,
                close_fds=True,
                **popen_options(),
            )
        except OSError as e:
            raise ServerDied(f"cannot start {binary}: {e}") from e
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._wfd = self._proc.stdin.fileno()
        # Buffered: a bare pipe's readline reads a byte per system call.
        self._out = io.BufferedReader(cast(io.RawIOBase, self._proc.stdout), 1 << 16)
        self._wlock = threading.Lock()
        self._ids = itertools.count(1)
        self._pending: dict[int, Queue] = {}
        self._routes: dict[str, Queue] = {}
        self._raw: set[str] = set()
        self.dead: BaseException | None = None
        self.forked = False
        # No reader thread: a thread waiting for an answer reads the
        # server's output itself (one at a time: the reading role), and
        # hands what is for others to their queues.
        self._rlock = threading.Lock()
        self._waiting: dict[Queue, None] = {}
        self._reader: int | None = None
        hello = self.call(p.HELLO, {"client": "backyard_ls (Python %d.%d)" % sys.version_info[:2]})
        self.version: str = hello["version"]
        self.max_request_bytes: int = hello["max_request_bytes"]

    @property
    def pid(self) -> int:
        return self._proc.pid

    def alive(self) -> bool:
        return self.dead is None and not self.forked and self._proc.poll() is None

    # Sending.

    def _write(self, data: bytes) -> None:
        if self.forked:
            raise SandboxClosed("this sandbox belongs to the process that forked this one; open a new one here")
        if self.dead is not None:
            raise ServerDied(f"backyard-ls exited: {self.dead}") from self.dead
        view = memoryview(data)
        with self._wlock:
            try:
                while view:
                    n = os.write(self._wfd, view)
                    view = view[n:]
            except OSError as e:
                self._died(e)
                raise ServerDied(f"backyard-ls is gone: {e}") from e

    def send(self, method: str, params: Any, q: Queue | None) -> int:
        """Sends a request whose answer goes to q (a notification when q
        is None) and returns its id."""
        body = encode_params(method, params)
        if q is None:
            self._write(('{"jsonrpc":"2.0","method":"%s","params":%s}\n' % (method, body)).encode())
            return 0
        i = next(self._ids)
        self._pending[i] = q
        try:
            self._write(('{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}\n' % (i, method, body)).encode())
        except BaseException:
            self._pending.pop(i, None)
            raise
        return i

    def notify_json(self, method: str, body: str) -> None:
        """Sends a notification whose params are already encoded."""
        self._write(('{"jsonrpc":"2.0","method":"%s","params":%s}\n' % (method, body)).encode())

    def respond(self, i: Any, result_json: str) -> None:
        """Answers a request of the server with an encoded result."""
        self._write(('{"jsonrpc":"2.0","id":%s,"result":%s}\n' % (encode_json(i), result_json)).encode())

    def route(self, key: str, q: Queue, raw: bool = False) -> None:
        """What the server sends about sandbox or batch key goes to q;
        raw: batch key's results as RawResults, not parsed."""
        self._routes[key] = q
        if raw:
            self._raw.add(key)

    def unroute(self, key: str, q: Queue) -> None:
        if self._routes.get(key) is q:
            del self._routes[key]
            self._raw.discard(key)

    def call(self, method: str, params: Any, handle: Callable[[Item], None] | None = None, route: str | None = None) -> Any:
        """Sends a request and waits for its result; while it waits, what
        the server sends about route is given to handle on this thread."""
        return self.call_json(method, encode_params(method, params), handle, route)

    def call_json(self, method: str, body: str, handle: Callable[[Item], None] | None = None, route: str | None = None) -> Any:
        """call with the params already encoded."""
        q: Queue = SimpleQueue()
        if route is not None:
            self._routes[route] = q
        i = next(self._ids)
        self._pending[i] = q
        try:
            self._write(('{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}\n' % (i, method, body)).encode())
            while True:
                item = self.next_item(q)
                tag = item[0]
                if tag == RESPONSE:
                    return result_of(item[1])
                if tag == DIED:
                    raise ServerDied(f"backyard-ls exited: {item[1]}") from item[1]
                if handle is not None:
                    handle(item)
                elif tag == CALL:
                    self.respond(item[1]["id"], NO_CELL)
        finally:
            self._pending.pop(i, None)
            if route is not None:
                self.unroute(route, q)

    def call_nowait(self, method: str, params: Any) -> None:
        """Sends a request whose answer nobody waits for."""
        if self.alive():
            try:
                self.send(method, params, SimpleQueue())
            except BackyardError:
                pass

    # Reading.

    def next_item(self, q: Queue) -> Item:
        """The next item for q: read from the server by this thread when no
        other thread is reading, else handed over by the one that is."""
        while True:
            while not q.empty():
                item = q.get()
                if item[0] != TURN:
                    return item
            if self.dead is not None:
                return (DIED, self.dead)
            waiting = self._waiting
            waiting[q] = None
            if self._rlock.acquire(False):
                del waiting[q]
                self._reader = threading.get_ident()
                try:
                    read_one = self._read_one
                    while q.empty() and self.dead is None:
                        got = read_one(q)
                        if got is not None:
                            return got
                finally:
                    self._reader = None
                    self._rlock.release()
                    if waiting:
                        self._wake_waiting()
                continue
            item = q.get()
            waiting.pop(q, None)
            if item[0] != TURN:
                return item

    def reading_here(self) -> bool:
        """Whether this thread holds the reading role (it cannot wait for
        an answer: it would have to read it itself)."""
        return self._reader == threading.get_ident()

    def _wake_waiting(self) -> None:
        # The reading role is free: every waiting thread tries for it (one
        # gets it; the others wait again).
        for q in list(self._waiting):
            q.put(_TURN)

    def _read_one(self, mine: Queue) -> Item | None:
        """Reads one message and hands it to the queue it is for; one for
        mine (the reading thread's) is returned instead."""
        try:
            line = self._out.readline()
            if not line:
                raise EOFError("the server closed its output")
            if self._raw:
                got = raw_results(line)
                if got is not None and got[0] in self._raw:
                    q = self._routes.get(got[0])
                    if q is mine:
                        return (NOTIFY, p.BATCH_RESULTS, got[1])
                    if q is not None:
                        q.put((NOTIFY, p.BATCH_RESULTS, got[1]))
                    return None
            msg = decode_line(line)
        except (OSError, EOFError, ValueError) as e:
            self._died(e)
            return None
        method = msg.get("method")
        if method is None:
            q = self._pending.pop(msg.get("id"), None)
            if q is mine:
                return (RESPONSE, msg)
            if q is not None:
                q.put((RESPONSE, msg))
            return None
        params = msg.get("params") or {}
        key = params.get("sandbox") or params.get("batch")
        q = self._routes.get(key) if key else None
        if "id" in msg:  # a request: a host function call
            if q is mine:
                return (CALL, msg)
            if q is not None:
                q.put((CALL, msg))
            else:
                self.respond(msg["id"], NO_CELL)
        elif q is mine:
            return (NOTIFY, method, params)
        elif q is not None:
            q.put((NOTIFY, method, params))
        elif method == p.WARNING:
            warnings.warn(str(params.get("message")), RuntimeWarning, stacklevel=1)
        return None

    def _died(self, reason: BaseException) -> None:
        code = self._proc.poll()
        if code is not None:
            reason = EOFError(f"the process exited with status {code}")
        self.dead = reason
        for q in list(self._pending.values()) + list(self._routes.values()) + list(self._waiting):
            q.put((DIED, reason))
        self._pending.clear()

    def close(self, wait: float = 10.0) -> None:
        """Ends the process: it closes every sandbox and batch (their
        workers and containers) and exits; waits up to wait seconds."""
        try:
            if self._proc.stdin is not None:
                self._proc.stdin.close()
        except OSError:
            pass
        try:
            self._proc.wait(wait)
        except subprocess.TimeoutExpired:
            self._proc.terminate()
        self._out.close()


def result_of(msg: dict[str, Any]) -> Any:
    """The result of a response, or its error raised."""
    if "error" in msg:
        raise error_from(msg["error"])
    return msg.get("result")


_lock = threading.Lock()
_connections: dict[str, Connection] = {}


def connection(binary: str | os.PathLike[str] | None = None) -> Connection:
    """The process serving this program for binary (found as find_binary
    says), started on first use and again if it died."""
    path = find_binary(binary)
    with _lock:
        c = _connections.get(path)
        if c is None or not c.alive():
            c = Connection(path)
            _connections[path] = c
        return c


def _close_all() -> None:
    with _lock:
        conns = list(_connections.values())
        _connections.clear()
    for c in conns:
        if not c.forked:
            c.close()


def _after_fork() -> None:
    # The child has the parent's pipes but not its reader thread: it must
    # start its own server; the parent's stays the parent's.
    global _lock
    _lock = threading.Lock()
    for c in _connections.values():
        c.forked = True
    _connections.clear()


atexit.register(_close_all)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
