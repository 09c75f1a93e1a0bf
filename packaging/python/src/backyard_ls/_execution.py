"""Execution: what one run of code did, and the records it is made from."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

from . import _protocol as p

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_TIMEOUT = 124
EXIT_MEMORY = 137


@dataclass(frozen=True)
class Frame:
    """One frame of a traceback, outermost first."""

    line: int | None
    """The 1-based line in the code that ran; None for a frame outside it (a function of another run, a library)."""
    name: str
    """The function's name; ``<module>`` for the code itself."""
    text: str
    """The source line, stripped."""
    file: str = ""
    """For a frame outside the code: the path of its file in the kernel."""
    file_line: int = 0
    """For a frame outside the code: its 1-based line in ``file``."""
    col: int = 0
    """Where the span CPython's carets mark starts on ``line`` (a 0-based UTF-16 column), when the backend knows it."""
    end_line: int | None = None
    """The 1-based line the span ends on; None when it is ``line``."""
    end_col: int = 0
    """Where the span ends on ``end_line`` (exclusive); 0 when there is no span."""

    def lines(self) -> str:
        """The frame as a traceback prints it: its place, then its source line."""
        text = f"    {self.text}\n" if self.text else ""
        if self.line is not None:
            return f'  File "<cell>", line {self.line}, in {self.name}\n' + text
        if self.file:
            return f'  File "{self.file}", line {self.file_line}, in {self.name}\n' + text
        return f"  In {self.name} (code from another run)\n" + text if text else ""


_CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"
_MAX_GROUP_DEPTH = 10


@dataclass(frozen=True)
class ExecutionError:
    """The exception a run raised (or why it stopped: a timeout, an interrupt, a crash), whole: its chain, notes and group members."""

    ename: str
    """The exception's type, e.g. ``"ZeroDivisionError"``."""
    evalue: str
    """Its message, as ``str()`` of the exception gives it."""
    frames: tuple[Frame, ...] = ()
    """The traceback's frames, outermost first."""
    notes: tuple[str, ...] = ()
    """Its PEP 678 notes."""
    cause: ExecutionError | None = None
    """The exception it was raised from (``raise … from cause``)."""
    context: ExecutionError | None = None
    """The exception being handled when it was raised (when there is no cause)."""
    exceptions: tuple[ExecutionError, ...] = ()
    """An exception group's members."""
    more_exceptions: int = 0
    """How many more members the group has than ``exceptions`` lists."""

    @property
    def traceback(self) -> str:
        """The whole exception as CPython's traceback module prints it: the
        chain first, each exception's frames, its ``ENAME: message`` line
        and notes, a group's members boxed."""
        return self.format()

    def format(self, frame: Callable[[Frame], str] | None = None) -> str:
        """``traceback`` with each frame written by frame (its lines, each
        ending in a newline; default Frame.lines)."""
        out: list[str] = []
        _Printer(out, frame or Frame.lines).format(self)
        return "".join(out)

    def __str__(self) -> str:
        return f"{self.ename}: {self.evalue}" if self.evalue else self.ename

    @classmethod
    def from_record(cls, e: p.ExecutionError) -> ExecutionError:
        """The error of a record (its lines counted from the code's first, 0-based)."""
        frames = tuple(
            Frame(
                line=f["line"] + 1 if f["line"] >= 0 else None,
                name=f["name"],
                text=f["text"],
                file=f.get("file", ""),
                file_line=f.get("fileLine", 0),
                col=f.get("col", 0),
                end_line=f["endLine"] + 1 if f.get("endLine") else None,
                end_col=f.get("endCol", 0),
            )
            for f in e.get("traceback") or ()
        )
        cause, context = e.get("cause"), e.get("context")
        return cls(
            ename=e["ename"],
            evalue=e["evalue"],
            frames=frames,
            notes=tuple(e.get("notes") or ()),
            cause=cls.from_record(cause) if cause is not None else None,
            context=cls.from_record(context) if context is not None else None,
            exceptions=tuple(cls.from_record(x) for x in e.get("exceptions") or ()),
            more_exceptions=e.get("moreExceptions", 0),
        )


class _Printer:
    """Lays out an exception as CPython's traceback module does (and the
    server's notebook.Traceback, against the same vectors)."""

    def __init__(self, out: list[str], frame: Callable[[Frame], str]) -> None:
        self.out = out
        self.frame = frame
        self.depth = 0  # how deep in exception groups
        self.close = False

    def emit(self, text: str, margin: str) -> None:
        prefix = "  " * self.depth + (margin + " " if self.depth > 0 else "")
        parts = text.split("\n")
        for i, part in enumerate(parts):
            line = part + "\n" if i < len(parts) - 1 else part
            if line:
                self.out.append(prefix + line)

    def format(self, e: ExecutionError) -> None:
        chain: list[tuple[str, ExecutionError]] = []
        x: ExecutionError | None = e
        while x is not None:
            nxt, msg = x.cause, _CAUSE
            if nxt is None:
                nxt, msg = x.context, _CONTEXT
            chain.append((msg if nxt is not None else "", x))
            x = nxt
        for msg, x in reversed(chain):
            if msg:
                self.emit(msg, "|")
            if not x.exceptions and not x.more_exceptions:
                if x.frames:
                    self.emit("Traceback (most recent call last):\n", "|")
                    self.emit("".join(self.frame(f) for f in x.frames), "|")
                self.emit(_exception_only(x), "|")
            elif self.depth > _MAX_GROUP_DEPTH:
                self.emit(f"... (max_group_depth is {_MAX_GROUP_DEPTH})\n", "|")
            else:
                self.group(x)

    def group(self, x: ExecutionError) -> None:
        top = self.depth == 0
        if top:
            self.depth += 1
        if x.frames:
            self.emit("Exception Group Traceback (most recent call last):\n", "+" if top else "|")
            self.emit("".join(self.frame(f) for f in x.frames), "|")
        self.emit(_exception_only(x), "|")
        n = len(x.exceptions)
        shown = n + (1 if x.more_exceptions else 0)
        self.close = False
        for i in range(shown):
            last = i == shown - 1
            if last:
                self.close = True  # a member that is a group may close the box itself
            title = str(i + 1) if i < n else "..."
            self.out.append("  " * self.depth + ("+-" if i == 0 else "  ") + "+---------------- " + title + " ----------------\n")
            self.depth += 1
            if i < n:
                self.format(x.exceptions[i])
            else:
                s = "" if x.more_exceptions == 1 else "s"
                self.emit(f"and {x.more_exceptions} more exception{s}\n", "|")
            if last and self.close:
                self.out.append("  " * self.depth + "+------------------------------------\n")
                self.close = False
            self.depth -= 1
        if top:
            self.depth = 0


def _exception_only(e: ExecutionError) -> str:
    return str(e) + "\n" + "".join(n + "\n" for n in e.notes)


@dataclass(frozen=True)
class FileChange:
    """A file a run created, changed or deleted."""

    path: str
    """Absolute, as both the kernel and the host name it."""
    state: p.FileState
    """``"created"``, ``"changed"`` or ``"deleted"``."""


@dataclass(frozen=True)
class Routing:
    """Why an auto sandbox ran a run where it did."""

    rule: str
    """The rule that applied, e.g. ``"module:numpy"``."""
    reason: str = ""
    check: str = ""
    """Set when the run ran on Monty and then in the container to compare: ``confirmed``, ``message``, ``differs`` or ``unconfirmed``."""
    moved: bool = False
    """This run moved the sandbox to the container."""
    monty_error: ExecutionError | None = None
    """Monty's error, when the container did not confirm it."""
    note: str = ""


class Execution:
    """What one run did: its status, output, value or error, where it ran.

    A Python exception in the code, a timeout or a crash is an Execution
    (``status`` says which), never an exception of the caller. The
    attributes of the original ``backyard`` are here too (``exit_code``,
    ``timed_out``, ``memory_limit_hit``, ``sandbox_type``, ``success``,
    ``result``, ``duration_sec``), so code written for it keeps working.
    """

    __slots__ = ("_rec", "_error", "id")

    def __init__(self, record: p.Execution, id: Any = None) -> None:
        self._rec = record
        self._error: ExecutionError | None = None
        self.id: Any = id
        """The snippet's id (batch results); None for a sandbox's run."""

    @classmethod
    def from_record(cls, record: p.Execution, id: Any = None) -> Execution:
        """An Execution of a record as the server sends it (the result of
        run, a batch_results item's execution)."""
        return cls(record, id)

    def to_record(self) -> p.Execution:
        """The record as the server sent it (JSON-compatible)."""
        return self._rec

    @property
    def status(self) -> p.Status:
        """``"ok"``, ``"error"`` (a Python exception), ``"timeout"``, ``"interrupted"`` or ``"crashed"``."""
        return self._rec["status"]

    @property
    def stdout(self) -> str:
        """What the code printed to stdout."""
        return self._rec["stdout"]

    @property
    def stderr(self) -> str:
        """What the code printed to stderr (warnings included)."""
        return self._rec["stderr"]

    @property
    def value(self) -> str | None:
        """``repr()`` of the value of the code's trailing expression, as a notebook shows it; None when there is none."""
        r = self._rec.get("result")
        return r["text"] if r is not None else None

    @property
    def mime(self) -> dict[str, str]:
        """The value's rich forms by MIME type (``image/png`` base64-encoded), where the backend has them."""
        r = self._rec.get("result")
        return dict(r.get("mime") or {}) if r is not None else {}

    @property
    def displays(self) -> list[p.Display]:
        """What ``display()`` showed, in order: each a MIME bundle (``data``, binary data base64-encoded), its ``metadata`` and ``displayId``."""
        return list(self._rec.get("displays") or [])

    @property
    def result(self) -> Any:
        """The value as a Python object when its repr is a literal (numbers, strings, lists, dicts…), else its text; None when there is none."""
        text = self.value
        if text is None:
            return None
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return text

    @property
    def error(self) -> ExecutionError | None:
        """The exception, for every status but ok."""
        if self._error is None:
            e = self._rec.get("error")
            if e is not None:
                self._error = ExecutionError.from_record(e)
        return self._error

    @property
    def execution_count(self) -> int:
        """The sandbox's execution count after this run (1 for a batch's snippet)."""
        return self._rec["executionCount"]

    @property
    def backend(self) -> str:
        """The backend that ran the code: ``"monty"`` or ``"container"``."""
        return self._rec["backend"]

    @property
    def sandbox_type(self) -> str:
        """The original backyard's name of ``backend``."""
        return self._rec["backend"]

    @property
    def runtime(self) -> str:
        """``"monty"``, ``"runc"`` or ``"runsc"``."""
        return self._rec["runtime"]

    @property
    def duration_ms(self) -> float:
        """Wall-clock time in the kernel, milliseconds."""
        return self._rec["durationMs"]

    @property
    def duration_sec(self) -> float:
        """Wall-clock time in the kernel, seconds."""
        return self._rec["durationMs"] / 1000

    @property
    def notes(self) -> list[str]:
        """Facts about this run a person must see, one line each."""
        return list(self._rec.get("notes") or ())

    @property
    def files(self) -> list[FileChange]:
        """The files this run created, changed or deleted."""
        return [FileChange(f["path"], f["state"]) for f in self._rec.get("files") or ()]

    @property
    def routing(self) -> Routing | None:
        """How an auto sandbox chose the backend for this run; None when no rule applied."""
        r = self._rec.get("routing")
        if r is None:
            return None
        me = r.get("montyError")
        return Routing(
            rule=r["rule"],
            reason=r.get("reason", ""),
            check=r.get("check", ""),
            moved=r.get("moved", False),
            monty_error=ExecutionError.from_record(me) if me is not None else None,
            note=r.get("note", ""),
        )

    @property
    def success(self) -> bool:
        """The code ran to the end (status ``"ok"``)."""
        return self.status == "ok"

    @property
    def failed(self) -> bool:
        """Not ``success``."""
        return self.status != "ok"

    @property
    def timed_out(self) -> bool:
        """The run hit its time limit."""
        return self.status == "timeout"

    @property
    def memory_limit_hit(self) -> bool:
        """The run ran out of its memory limit."""
        e = self._rec.get("error")
        if e is None:
            return False
        if e["ename"] == "MemoryError":
            return True
        return self.status == "crashed" and "out of memory" in e["evalue"]

    @property
    def exit_code(self) -> int:
        """As a process would exit: 0 ok, 124 timeout, 137 out of memory, 1 anything else."""
        status = self.status
        if status == "ok":
            return EXIT_OK
        if status == "timeout":
            return EXIT_TIMEOUT
        if self.memory_limit_hit:
            return EXIT_MEMORY
        return EXIT_ERROR

    def __repr__(self) -> str:
        parts = [f"status={self.status!r}"]
        if self.id is not None:
            parts.insert(0, f"id={self.id!r}")
        if self.stdout:
            parts.append(f"stdout={_short(self.stdout)!r}")
        if self.stderr:
            parts.append(f"stderr={_short(self.stderr)!r}")
        if self.value is not None:
            parts.append(f"value={_short(self.value)!r}")
        if self.error is not None:
            parts.append(f"error={_short(str(self.error))!r}")
        parts.append(f"backend={self.backend!r}")
        parts.append(f"duration_ms={self.duration_ms:.3f}")
        return "Execution(" + ", ".join(parts) + ")"


def _short(s: str, n: int = 200) -> str:
    return s if len(s) <= n else s[:n] + "…"


_STATUS = b'"status":"'


def status_of(record: bytes) -> p.Status:
    """The status of a record still as the JSON bytes the server wrote, not
    parsed: its first ``"status"`` key is the record's own (a record opens
    with its id, a number or a string the server makes, its range and
    executionCount, numbers; JSON escapes every quote inside a string)."""
    at = record.find(_STATUS) + len(_STATUS)
    if record.startswith(b'ok"', at):
        return "ok"
    return record[at:record.index(b'"', at)].decode()  # type: ignore[return-value]


class RawRecords:
    """Records still as the bytes the server wrote: ``pieces[k]`` holds
    record k's JSON (status_of reads its status). ``parse`` (of a subclass)
    parses them all at once, when a record first needs more than its
    status; the bytes go then."""

    __slots__ = ("pieces", "records")

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces
        self.records: list[p.Execution] | None = None

    def parse(self) -> list[p.Execution]:
        """Every record, parsed."""
        raise NotImplementedError

    def record(self, k: int) -> p.Execution:
        records = self.records
        if records is None:
            records = self.records = self.parse()
            self.pieces = []  # a new list: a reader holding the old one still reads it
        return records[k]

    def status(self, k: int) -> p.Status:
        pieces = self.pieces
        if not pieces:
            return self.record(k)["status"]
        return status_of(pieces[k])


class LazyExecution(Execution):
    """An Execution of a record of RawRecords, parsed when first read
    beyond its status (its ``_rec`` slot stays empty until then)."""

    __slots__ = ("_src", "_k")

    def __init__(self, src: RawRecords, k: int, id: Any) -> None:
        self._src = src
        self._k = k
        self.id = id

    def __getattr__(self, name: str) -> Any:
        # Called only for an empty slot (or a missing attribute).
        if name == "_rec":
            rec = self._src.record(self._k)
            self._rec = rec
            return rec
        if name == "_error":
            return None
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def status(self) -> p.Status:
        return self._src.status(self._k)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Execution, (self._rec, self.id))
