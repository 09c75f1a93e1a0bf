"""The real Python MCP client (PyPI `mcp`) against `backyard-ls mcp`.

Run by mcp/python_test.go, which starts the server (HTTP) or names the
command to start (stdio), and checks afterwards that the server exited
cleanly and left no container. Every check raises AssertionError with what
was seen; the last line printed is "passed N".

Usage: client_suite.py --tools NAMES --wheel MODULE --workspace DIR [--legacy] (--url URL | -- CMD ARGS...)
"""

import argparse
import asyncio
import json
import os
import sys
import time

import anyio
from mcp import Client, StdioServerParameters

PASSED = []


def check(name):
    def wrap(f):
        async def run(c, args):
            t0 = time.monotonic()
            await f(c, args)
            PASSED.append(name)
            print(f"ok {name} ({time.monotonic() - t0:.2f} s)", flush=True)

        run.__name__ = name
        return run

    return wrap


async def call(c, tool, arguments, **kw):
    r = await c.call_tool(tool, arguments, **kw)
    return r, r.structured_content


def text(r):
    return "".join(getattr(x, "text", "") for x in r.content)


@check("tools are listed with input and output schemas")
async def tools_listed(c, args):
    tools = {t.name: t for t in (await c.list_tools()).tools}
    assert sorted(tools) == sorted(args.tools.split(",")), sorted(tools)
    for t in tools.values():
        assert t.description, t.name
        assert t.input_schema["type"] == "object" and t.input_schema.get("properties"), (t.name, t.input_schema)
        assert t.output_schema and t.output_schema["type"] == "object", (t.name, t.output_schema)
    assert tools["install_packages"].input_schema["properties"]["packages"]["type"] == "array"
    run = tools["run_python"]
    assert run.input_schema["required"] == ["code"], run.input_schema
    assert set(run.input_schema["properties"]) == {"code", "session", "timeout_s"}
    props = run.output_schema["properties"]
    for k in ("status", "stdout", "stderr", "result", "error", "backend", "runtime", "execution_count", "files_changed"):
        assert k in props, (k, sorted(props))
    assert "interrupted" in props["status"]["enum"], props["status"]


@check("state is kept in a session and separate between sessions")
async def sessions_keep_state(c, args):
    r, s = await call(c, "run_python", {"code": "x = 20\nprint('set')", "session": "a"})
    assert s["status"] == "ok" and s["stdout"] == "set\n" and s["execution_count"] == 1, s
    r, s = await call(c, "run_python", {"code": "x * 2 + 2", "session": "a"})
    assert s["result"] == "42" and s["execution_count"] == 2 and s["backend"] == "monty", s
    assert "Out[2]: 42" in text(r), text(r)
    r, s = await call(c, "run_python", {"code": "x", "session": "b"})
    assert s["status"] == "error" and s["error"]["ename"] == "NameError", s
    r, s = await call(c, "list_variables", {"session": "a"})
    assert [v["name"] for v in s["variables"]] == ["x"] and s["variables"][0]["repr"] == "20", s
    # The default session is one more.
    r, s = await call(c, "run_python", {"code": "'default' * 1"})
    assert s["session"] == "default" and s["result"] == "'default'", s
    r, s = await call(c, "reset_session", {"session": "a"})
    assert s == {"session": "a", "backend": "auto"}, s
    r, s = await call(c, "run_python", {"code": "x", "session": "a"})
    assert s["status"] == "error" and s["execution_count"] == 1, s


@check("a Python exception is a result, not a protocol error")
async def error_is_result(c, args):
    r, s = await call(c, "run_python", {"code": "def f():\n    return 1/0\nf()", "session": "err"})
    assert not r.is_error, r
    e = s["error"]
    assert s["status"] == "error" and e["ename"] == "ZeroDivisionError" and e["evalue"] == "division by zero", s
    assert [f["line"] for f in e["traceback"]] == [3, 2], e["traceback"]
    t = text(r)
    assert "Traceback" in t and "ZeroDivisionError: division by zero" in t and "line 2, in f" in t, t
    # Bad arguments are a tool error the model can read, still not a protocol error.
    r = await c.call_tool("run_python", {"code": "   "})
    assert r.is_error and "empty" in text(r), r
    r = await c.call_tool("run_python", {"code": "1", "timeout_s": -1})
    assert r.is_error and "timeout" in text(r), text(r)


@check("long output is cut in the text, whole in the structured result")
async def truncation(c, args):
    r, s = await call(c, "run_python", {"code": "for i in range(3000):\n    print('line', i)", "session": "long"})
    assert s["stdout"].count("\n") == 3000, len(s["stdout"])
    t = text(r)
    assert "bytes cut" in t and "line 0\n" in t and "line 2999" in t and len(t) < 6000, len(t)


@check("a per-call timeout stops the cell and keeps the session")
async def timeout(c, args):
    await call(c, "run_python", {"code": "import time\nkept = 1", "session": "t"})
    r, s = await call(c, "run_python", {"code": "time.sleep(5)", "session": "t", "timeout_s": 0.5})
    assert s["status"] == "timeout" and s["error"]["ename"] == "TimeoutError", s
    r, s = await call(c, "run_python", {"code": "kept", "session": "t"})
    assert s["result"] == "1", s


@check("progress notifications while a kernel starts")
async def progress(c, args):
    seen = []

    async def on_progress(p, total, message):
        seen.append(message)

    r, s = await call(c, "run_python", {"code": "1", "session": "fresh"}, progress_callback=on_progress)
    assert s["status"] == "ok", s
    assert any(m and "Starting" in m for m in seen), seen


@check("cancelling a call interrupts `while True`")
async def cancel(c, args):
    await call(c, "run_python", {"code": "before = 5", "session": "loop"})
    t0 = time.monotonic()
    with anyio.move_on_after(1.5):
        await c.call_tool("run_python", {"code": "while True:\n    pass", "session": "loop"})
        raise AssertionError("the loop returned")
    # The server's time limit is long: only the interrupt ends the loop.
    r, s = await call(c, "run_python", {"code": "before + 1", "session": "loop"})
    assert s["status"] == "ok" and s["result"] == "6", s
    took = time.monotonic() - t0
    assert took < 20, took


@check("50 concurrent sessions")
async def concurrent(c, args):
    async def one(i):
        _, s = await call(c, "run_python", {"code": f"v = {i}", "session": f"s{i}"})
        assert s["status"] == "ok", s
        _, s = await call(c, "run_python", {"code": "v * 2", "session": f"s{i}"})
        return s

    results = await asyncio.gather(*(one(i) for i in range(50)))
    for i, s in enumerate(results):
        assert s["result"] == str(2 * i) and s["session"] == f"s{i}", (i, s)


@check("a numpy call moves the session to the container, with its state")
async def numpy_moves(c, args):
    await call(c, "run_python", {"code": "n = 4", "session": "np"})
    r, s = await call(c, "run_python", {"code": "import numpy as np\nint(np.arange(n + 1).sum())", "session": "np"})
    assert s["status"] == "ok" and s["result"] == "10" and s["backend"] == "container", s
    assert s["runtime"] in ("runc", "runsc"), s
    # A PNG value is an image content.
    png = "89504e470d0a1a0a0000000d4948445200000001000000010806000000" "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    code = f"class P:\n    def _repr_png_(self):\n        return bytes.fromhex('{png}')\nP()"
    r, s = await call(c, "run_python", {"code": code, "session": "np"})
    assert "image/png" in s.get("result_mime", []), s
    imgs = [x for x in r.content if getattr(x, "type", "") == "image"]
    assert len(imgs) == 1 and imgs[0].mime_type == "image/png", r.content


@check("install_packages installs into the container's package volume")
async def install(c, args):
    r, s = await call(c, "install_packages", {"session": "np", "packages": [args.wheel]})
    assert not r.is_error and s["installed"] == [args.wheel], (text(r), s)
    r, s = await call(c, "run_python", {"code": f"import {args.wheel}\n{args.wheel}.ANSWER + n", "session": "np"})
    assert s["result"] == "46", s


@check("the files a run writes are listed and kept out of the workspace")
async def files_changed(c, args):
    ws = args.workspace
    r, s = await call(c, "run_python", {"code": "with open('made.txt', 'w') as f:\n    f.write(open('given.txt').read() * 2)", "session": "files"})
    assert s["status"] == "ok", s
    assert s["files_changed"] == [{"path": os.path.join(ws, "made.txt"), "state": "created"}], s["files_changed"]
    assert "[files: created " + os.path.join(ws, "made.txt") + "]" in text(r), text(r)
    assert not os.path.exists(os.path.join(ws, "made.txt")), "the workspace was written"
    r, s = await call(c, "run_python", {"code": "open('made.txt').read()", "session": "files"})
    assert s["result"] == "'givengiven'" and s["files_changed"] == [], s
    # In the container too (the numpy session has moved there).
    r, s = await call(c, "run_python", {"code": "open('c.txt', 'w').write(str(n))", "session": "np"})
    assert s["backend"] == "container" and s["files_changed"] == [{"path": os.path.join(ws, "c.txt"), "state": "created"}], s


CHECKS = [tools_listed, sessions_keep_state, error_is_result, truncation, timeout, progress, cancel, concurrent, numpy_moves, install, files_changed]


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", help="streamable HTTP; without it, the command after -- is started on stdio")
    ap.add_argument("--tools", required=True)
    ap.add_argument("--wheel", required=True)
    ap.add_argument("--workspace", required=True, help="the server's --workspace; holds given.txt")
    ap.add_argument("--legacy", action="store_true", help="also check the pre-2026 initialize handshake")
    argv = sys.argv[1:]
    command = []
    if "--" in argv:
        command = argv[argv.index("--") + 1 :]
        argv = argv[: argv.index("--")]
    args = ap.parse_args(argv)
    server = args.url or StdioServerParameters(command=command[0], args=command[1:])
    async with Client(server, read_timeout_seconds=300) as c:
        print("protocol", c.session.protocol_version, flush=True)
        for f in CHECKS:
            await f(c, args)
    if args.legacy:
        async with Client(server, mode="legacy", read_timeout_seconds=120) as c:
            assert c.session.protocol_version < "2026", c.session.protocol_version
            r = await c.call_tool("run_python", {"code": "40 + 2", "session": "legacy"})
            assert r.structured_content["result"] == "42", r
            PASSED.append("legacy handshake")
            print("ok legacy handshake", c.session.protocol_version, flush=True)
    print("passed", len(PASSED), flush=True)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except BaseException:
        import traceback

        traceback.print_exc()
        sys.exit(1)
