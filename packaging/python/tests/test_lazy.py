"""A batch's results are kept as the server's bytes and parsed when first
read beyond their status: every field reads as it does from the parsed
record, and the status is read without parsing."""

from __future__ import annotations

import asyncio
import copy
import json
import pickle
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import IMAGE

from backyard_ls import BadArgument, Execution, _async, _client, run_batch, run_batch_async
from backyard_ls._execution import LazyExecution

FIELDS = sorted(n for n, v in vars(Execution).items() if isinstance(v, property))
# What reads the status alone (no parse) for a result that ran to the end or timed out.
CHEAP = ["status", "success", "failed", "timed_out", "exit_code"]
raw_results = _client.raw_results  # the real one (the lines fixture wraps the module's)


def lazy_results(line: bytes) -> list[tuple[LazyExecution, _client.RawResults]]:
    """Each result of a batch_results line as a fresh LazyExecution (nothing
    of the line parsed yet), with its RawResults."""
    out = []
    got = raw_results(line)
    assert got is not None, line[:200]
    for k in range(len(got[1].pieces)):
        got = raw_results(line)
        assert got is not None
        out.append((LazyExecution(got[1], k, got[1].index(k)), got[1]))
    return out


def check_line(line: bytes) -> int:
    """Every field of every result of line, each read first from a fresh
    LazyExecution, equals the field of the Execution of the parsed record."""
    parsed = _client.decode_line(line)["params"]["results"]
    assert parsed
    for name in ["to_record", "__repr__", *FIELDS]:
        for k, (lazy, raw) in enumerate(lazy_results(line)):
            eager = Execution(parsed[k]["execution"], parsed[k]["index"])
            assert lazy.id == eager.id
            got, want = getattr(lazy, name), getattr(eager, name)
            if callable(got):
                got, want = got(), want()
            assert got == want, (name, k)
            if name in CHEAP and eager.status in ("ok", "timeout"):
                assert raw.records is None, f"{name} parsed the line"
    return len(parsed)


@pytest.fixture
def lines(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """The batch_results lines the connections took unparsed."""
    seen: list[bytes] = []

    def keep(line: bytes) -> tuple[str, _client.RawResults] | None:
        got = raw_results(line)
        if got is not None:
            seen.append(line)
        return got

    monkeypatch.setattr(_client, "raw_results", keep)
    monkeypatch.setattr(_async, "raw_results", keep)
    yield seen


MONTY = [
    "1 + 1",
    "print('a')\n'x'",
    "1 / 0",
    "def f():\n    raise KeyError('k')\ntry:\n    f()\nexcept KeyError as e:\n    raise ValueError('v') from e",
    "try:\n    1 / 0\nexcept ZeroDivisionError:\n    raise TypeError('t')",
    # The status key's text in the output, quotes and all.
    "print('\",\"status\":\"ok\"')\nraise RuntimeError('\"status\":\"ok\"')",
    "x = [1, 2]\nx",
    {"code": "while True:\n    pass", "timeout": 0.3},
    {"code": "1", "timeout": -1},  # refused: an error record
    "s = 'é\\t\\n\\u2028'\ns",
]


@pytest.mark.parametrize("ordered", [True, False])
def test_monty_results_read_lazily_as_parsed(lines: list[bytes], ordered: bool) -> None:
    rs = list(run_batch(MONTY * 3, backend="monty", ordered=ordered, timeout=30))
    assert all(type(r) is LazyExecution for r in rs)
    assert sum(check_line(line) for line in lines) == len(MONTY) * 3
    by_id = {r.id: r for r in rs}
    assert by_id[0].value == "2" and by_id[5].status == "error" and by_id[5].stdout == '","status":"ok"\n'
    assert by_id[3].error is not None and by_id[3].error.ename == "ValueError" and by_id[3].error.frames
    assert by_id[7].timed_out and by_id[8].error is not None and by_id[8].error.ename == "BatchInputError"


def test_async_results_read_lazily_as_parsed(lines: list[bytes]) -> None:
    async def main() -> list[Execution]:
        return [r async for r in run_batch_async(MONTY, backend="monty", timeout=30)]

    rs = asyncio.run(main())
    assert [r.id for r in rs] == list(range(len(MONTY)))
    assert all(type(r) is LazyExecution for r in rs)
    assert sum(check_line(line) for line in lines) == len(MONTY)


@pytest.mark.usefixtures("engine")
def test_container_results_read_lazily_as_parsed(lines: list[bytes]) -> None:
    snippets = [
        "import sys\nprint('out')\nprint('err', file=sys.stderr)\n{'a': (1, 2)}",
        "try:\n    1/0\nexcept Exception as e:\n    e.add_note('n1')\n    raise ValueError('v') from e",
        "raise ExceptionGroup('g', [ValueError(1), TypeError(2)])",
        "import warnings\nwarnings.warn('w')",
        "import numpy\nnumpy.__name__",
        "1 + 1",
    ]
    rs = list(run_batch(snippets, backend="auto", image=IMAGE, runtime="runc", timeout=60))
    assert rs[4].backend == "container" and rs[4].routing is not None and rs[5].backend == "monty"
    assert sum(check_line(line) for line in lines) == len(snippets)
    assert rs[2].error is not None and [e.ename for e in rs[2].error.exceptions] == ["ValueError", "TypeError"]


def server_line(records: list[dict[str, Any]], batch: str = "b7", base: int = 0) -> bytes:
    """A batch_results line as the server writes it (api/batch.go): compact
    JSON, a tab before each result."""
    enc = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    results = ",".join('\t{"index":%d,"execution":%s}' % (base + k, enc(r)) for k, r in enumerate(records))
    return ('{"jsonrpc":"2.0","method":"batch_results","params":{"batch":%s,"results":[%s]}}\n' % (enc(batch), results)).encode()


def record(status: str, **more: Any) -> dict[str, Any]:
    rng = {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 5}}
    return {"id": "e9", "range": rng, "executionCount": 1, "status": status, "stdout": "", "stderr": "", **more,
            "backend": "container", "runtime": "runsc", "durationMs": 1.5}


FULL = [
    record(
        "ok",
        stdout='{"status":"error"}\n',
        result={"text": "<Fig>", "mime": {"text/plain": "<Fig>", "image/png": "iVBOR"}},
        displays=[
            {"data": {"text/plain": "1"}, "metadata": {"status": "error", "w": [1, {"x": None}]}, "displayId": "d1", "stdoutBefore": 3},
            {"data": {"text/html": "<b>\t</b>", "text/plain": "two"}, "afterResult": True},
        ],
        notes=["restored"],
        files=[{"path": "out.txt", "state": "created"}, {"path": "old.txt", "state": "deleted"}],
        routing={"rule": "error:NameError", "reason": "r", "check": "differs", "moved": True,
                 "montyError": {"ename": "NameError", "evalue": "x", "traceback": [{"line": 0, "name": "<module>", "text": "x"}]}, "note": "n"},
    ),
    record(
        "error",
        error={
            "ename": "ExceptionGroup", "evalue": "g (3 sub-exceptions)",
            "traceback": [{"line": 1, "name": "<module>", "text": "raise g", "col": 0, "endLine": 2, "endCol": 7},
                          {"line": -1, "name": "f", "text": "y", "file": "/usr/lib/x.py", "fileLine": 40}],
            "notes": ["a", "b"],
            "exceptions": [{"ename": "ValueError", "evalue": "1", "traceback": []}],
            "moreExceptions": 2,
            "context": {"ename": "KeyError", "evalue": "'k'", "traceback": [], "cause": {"ename": "OSError", "evalue": "o", "traceback": []}},
        },
    ),
    record("crashed", error={"ename": "KernelDied", "evalue": "the kernel ran out of memory", "traceback": []}),
    record("error", error={"ename": "MemoryError", "evalue": "", "traceback": []}),
    record("timeout", error={"ename": "TimeoutError", "evalue": "5 s", "traceback": []}),
    record("interrupted", error={"ename": "KeyboardInterrupt", "evalue": "", "traceback": []}),
]


def test_every_field_reads_as_parsed() -> None:
    # Displays, files, routing, every part of an error: what batch records
    # of today's kernels do not all carry, in the server's framing.
    assert check_line(server_line(FULL)) == len(FULL)


def test_status_is_read_off_the_line() -> None:
    line = server_line(FULL, base=40)
    statuses = [r["status"] for r in FULL]
    for k, (lazy, raw) in enumerate(lazy_results(line)):
        assert lazy.id == 40 + k
        assert lazy.status == statuses[k] and raw.records is None
        assert lazy.stdout == FULL[k]["stdout"] and raw.records is not None
        assert lazy.status == statuses[k]  # now from the parsed record


def test_a_lazy_result_copies_and_pickles_as_an_execution() -> None:
    (lazy, raw), *_ = lazy_results(server_line(FULL))
    for e in (pickle.loads(pickle.dumps(lazy)), copy.copy(lazy), copy.deepcopy(lazy)):
        assert type(e) is Execution and e.id == 0
        assert e.to_record() == FULL[0] and e.displays == lazy.displays and e.files == lazy.files


def test_other_lines_are_parsed_as_any_message() -> None:
    assert raw_results(server_line(FULL)) is not None
    plain = json.dumps({"jsonrpc": "2.0", "method": "batch_results", "params": {"batch": "b1", "results": [{"index": 0, "execution": FULL[0]}]}},
                       separators=(",", ":")).encode() + b"\n"
    failed = b'{"jsonrpc":"2.0","method":"batch_results","params":{"batch":"b1","results":[],"error":"no engine","error_kind":"backend_unavailable"}}\n'
    other = b'{"jsonrpc":"2.0","method":"output","params":{"sandbox":"s1","stream":"stdout","text":"\\t"}}\n'
    for line in (plain, failed, other, server_line(FULL)[:-1], server_line(FULL, batch='b"1')):
        assert raw_results(line) is None, line[:120]


def test_ids_that_are_not_the_index_are_kept() -> None:
    # Code strings and dicts of code and id are framed without a loop
    # per snippet when a chunk holds only them.
    dicts: list[Any] = [{"id": "a", "code": "0"}, {"id": True, "code": "1"}, {"id": 2.0, "code": "2"}, {"id": None, "code": "3"},
                        {"id": [4], "code": "4"}, {"code": "5"}, {"id": 6, "code": "6"}, {"id": 0, "code": "7"}]
    for snippets, first in ((dicts, "a"), (["0", *dicts[1:]], 0), ([{**dicts[0], "timeout": 30}, *dicts[1:]], "a")):
        for ordered in (True, False):
            rs = sorted(run_batch(snippets, backend="monty", ordered=ordered), key=lambda r: int(r.value or 0))
            ids = [r.id for r in rs]
            assert ids == [first, True, 2.0, None, [4], 5, 6, 0]
            assert [type(i) for i in ids] == [type(first), bool, float, type(None), list, int, int, int]
    rs = list(run_batch([{"id": i, "code": f"{i} * 2"} for i in range(2000)], backend="monty"))
    assert [r.id for r in rs] == list(range(2000)) and rs[1999].value == "3998"


@pytest.mark.parametrize("bad", [{"id": 1}, {"code": 5}, {"code": "1", "stdin": []}, {1: "x", "code": "1"}])
def test_bad_dicts_among_good_ones(bad: dict[Any, Any]) -> None:
    with pytest.raises(BadArgument, match="snippet 2"):
        list(run_batch([{"code": "1"}, {"id": 1, "code": "2"}, bad], backend="monty"))
