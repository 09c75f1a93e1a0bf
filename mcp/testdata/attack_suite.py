"""Harmless attacks on `backyard-ls mcp` through the real Python MCP client.

Run by mcp/attack_test.go with a canary secret in the environment it passes
on to the server. Prints one JSON object per tool call ({"call", "seconds",
"text", "structured"}) for the Go side to check (no secret anywhere, Monty's
answers), then "done".

Usage: attack_suite.py PROBE_FILE BIG_FILE -- CMD ARGS...

PROBE_FILE is the cell that reads what it must not, BIG_FILE one that binds
values list_variables must cut.
"""

import asyncio
import json
import os
import sys
import time

from mcp import Client, StdioServerParameters


async def call(c, name, tool, arguments, timeout=120):
    t0 = time.monotonic()
    r = await asyncio.wait_for(c.call_tool(tool, arguments), timeout)
    text = "".join(getattr(x, "text", "") for x in r.content)
    rec = {"call": name, "seconds": time.monotonic() - t0, "text": text, "structured": r.structured_content}
    print(json.dumps(rec), flush=True)
    return r.structured_content


async def main():
    argv = sys.argv[1:]
    probe = open(argv[0]).read()
    big = open(argv[1]).read()
    command = argv[argv.index("--") + 1 :]
    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ), cwd=os.getcwd())
    async with Client(server, read_timeout_seconds=300) as c:
        await call(c, "probe", "run_python", {"code": probe, "session": "probe"})
        # A read of the server's stdin: answered at once, and the next
        # request on the same stream is answered too.
        await call(c, "stdin", "run_python", {"code": "open('/dev/stdin').read()", "session": "probe", "timeout_s": 20}, timeout=60)
        s = await call(c, "after", "run_python", {"code": "6 * 7", "session": "probe"})
        assert s["result"] == "42", s
        s = await call(c, "big", "run_python", {"code": big, "session": "vars"})
        assert s["status"] == "ok", s
        await call(c, "variables", "list_variables", {"session": "vars"})
        s = await call(c, "kept", "run_python", {"code": "len(big), cyc[2] is cyc", "session": "vars"})
        assert s["result"] == "(3000000, True)", s
    print("done", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
