"""run_python round trips through the real Python MCP client, and the same
cell through pydantic-monty's own bindings (a pool of the same worker).

Prints one JSON object per measured path with the median and p90 of a
trivial cell ("x = x + 1", as bench/jupyter_peer.py runs it), in ms.

Usage: bench/mcp_peer.py --server BIN --monty WORKER [--cells N]
(run by scripts/bench-mcp.sh with the cached venv's python)
"""

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import time

import pydantic_monty
from mcp import Client, StdioServerParameters

CELL = "x = x + 1"


def summary(peer, samples, **extra):
    samples = sorted(samples)
    return {"peer": peer, "cell_ms": statistics.median(samples), "cell_p90_ms": samples[len(samples) * 9 // 10], "n": len(samples), **extra}


async def mcp_round_trips(server, cells):
    async with Client(server) as c:
        for _ in range(20):
            await c.call_tool("run_python", {"code": "pass"})
        await c.call_tool("run_python", {"code": "x = 0"})
        samples = []
        for _ in range(cells):
            t = time.perf_counter()
            r = await c.call_tool("run_python", {"code": CELL})
            samples.append((time.perf_counter() - t) * 1e3)
            assert r.structured_content["status"] == "ok", r
        r = await c.call_tool("run_python", {"code": "x"})
        assert r.structured_content["result"] == str(cells), r.structured_content
        return samples, c.session.protocol_version


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def monty_bindings(worker, cells):
    with pydantic_monty.Monty(binary_path=worker, min_processes=1, max_processes=1) as pool:
        with pool.checkout() as s:
            for _ in range(20):
                s.feed_run("pass")
            s.feed_run("x = 0")
            samples = []
            for _ in range(cells):
                t = time.perf_counter()
                s.feed_run(CELL)
                samples.append((time.perf_counter() - t) * 1e3)
            assert s.feed_run("x") == cells
    return samples


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--monty", required=True)
    ap.add_argument("--cells", type=int, default=500)
    args = ap.parse_args()
    flags = ["mcp", "--backend", "monty", "--monty", args.monty]

    samples, proto = asyncio.run(mcp_round_trips(StdioServerParameters(command=args.server, args=flags), args.cells))
    print(json.dumps(summary("mcp-stdio", samples, protocol=proto)), flush=True)

    port = free_port()
    proc = subprocess.Popen([args.server, *flags, "--http", f"127.0.0.1:{port}"], stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stderr:
            if "serving streamable HTTP" in line:
                break
        samples, proto = asyncio.run(mcp_round_trips(f"http://127.0.0.1:{port}/mcp", args.cells))
        print(json.dumps(summary("mcp-http", samples, protocol=proto)), flush=True)
    finally:
        proc.terminate()
        proc.wait(30)

    samples = monty_bindings(args.monty, args.cells)
    print(json.dumps(summary("pydantic-monty", samples, version=pydantic_monty.__version__ if hasattr(pydantic_monty, "__version__") else "1.4.0")), flush=True)


if __name__ == "__main__":
    sys.exit(main())
