"""How long `backyard-ls mcp` takes to exit once its stdin closes, and
whether it leaves a container behind.

Each run starts the server on the container backend, runs a cell in
--sessions sessions (each its own container kernel; the server's warm
pool refills behind the first), starts an endless cell in the last one
when --busy is given, then closes stdin and times the exit. A server
answers the requests it read before its input ended, so with --busy the
client also sends SIGTERM, the MCP spec's next step (the Python MCP SDK's
stdio client sends it 2 s after closing stdin; here at once).

With --hog N, N busy loops run beside (started and stopped here).

Prints one JSON object: the median, min and max exit time in ms over
--runs runs, and the containers left (must be 0).

Usage: bench/exit.py --server bin/backyard-ls --image backyard-python:test [--runs 7] [--hog 4] [--busy] [--settle 1.3]
"""

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time


def hog():
    while True:
        pass


class Server:
    def __init__(self, argv, cwd):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
        self.seq = 0

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def call(self, method, params, wait=True):
        self.seq += 1
        self.send({"jsonrpc": "2.0", "id": self.seq, "method": method, "params": params})
        if not wait:
            return None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            m = json.loads(line)
            if m.get("id") == self.seq:
                if "error" in m:
                    raise RuntimeError(m["error"])
                return m["result"]


def one_run(args, ws):
    argv = [args.server, "mcp", "--backend", "container", "--image", args.image, "--workspace", ws, "--timeout", "600"]
    if args.log:
        argv += ["--log-level", "debug", "--log-file", args.log]
    s = Server(argv, ws)
    s.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "exit-bench", "version": "0"}})
    s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for i in range(args.sessions):
        r = s.call("tools/call", {"name": "run_python", "arguments": {"code": "x = 1", "session": f"s{i}"}})
        sc = r.get("structuredContent") or {}
        if sc.get("status") != "ok":
            raise RuntimeError(r)
    if args.busy:
        s.call("tools/call", {"name": "run_python", "arguments": {"code": "while True:\n    pass", "session": f"s{args.sessions - 1}"}}, wait=False)
        time.sleep(0.5)  # let the cell start (the bench only; tests wait for events)
    if args.settle:
        time.sleep(args.settle)  # e.g. the warm pool's refill under way
    pid = s.p.pid
    t = time.perf_counter()
    if args.log:
        print("closing stdin at", time.strftime("%H:%M:%S", time.gmtime()) + ".%03d" % (time.time() % 1 * 1000), file=sys.stderr)
    s.p.stdin.close()
    if args.busy:
        s.p.terminate()
    s.p.wait()
    took = (time.perf_counter() - t) * 1e3
    left = subprocess.run(["docker", "ps", "-aq", "--filter", f"label=dev.backyard-ls.pid={pid}"], capture_output=True, text=True).stdout.split()
    if left:
        subprocess.run(["docker", "rm", "-f", *left], capture_output=True)
    return took, len(left), s.p.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--image", default="backyard-python:test")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--sessions", type=int, default=2)
    ap.add_argument("--hog", type=int, default=0)
    ap.add_argument("--busy", action="store_true")
    ap.add_argument("--settle", type=float, default=0, help="seconds to wait before closing stdin (1.3: the warm pool refills behind the second session)")
    ap.add_argument("--log", help="the server's debug log (the last run's)")
    args = ap.parse_args()
    args.server = os.path.abspath(args.server)
    hogs = [multiprocessing.Process(target=hog, daemon=True) for _ in range(args.hog)]
    for h in hogs:
        h.start()
    try:
        samples, left, codes = [], 0, []
        with tempfile.TemporaryDirectory() as ws:
            for _ in range(args.runs):
                took, n, code = one_run(args, ws)
                samples.append(took)
                left += n
                codes.append(code)
    finally:
        for h in hogs:
            h.terminate()
            h.join()
    print(json.dumps({"server": os.path.basename(os.path.dirname(args.server)) + "/" + os.path.basename(args.server), "hog": args.hog, "busy": args.busy, "settle": args.settle, "sessions": args.sessions, "runs": args.runs,
                      "exit_median_ms": round(statistics.median(samples)), "exit_min_ms": round(min(samples)),
                      "exit_max_ms": round(max(samples)), "containers_left": left, "exit_codes": sorted(set(codes))}))
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
