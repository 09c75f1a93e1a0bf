#!/usr/bin/python3
"""Round trip of a trivial cell, one client for every peer, in one run.

The same Python client sends `workspace/executeCommand backyard.runCell` for
`x = 1` over stdio to (1) bench/floor, a minimal Go responder that answers
on its read goroutine (the floor of any server in Go over these pipes),
(2) bench/floor with the run's five notifications (-notify), (3) with one
real round trip to a Monty worker per run (-monty), (4) with both: what
the contract and a kernel in another process cost before any server code,
(5) `backyard-ls serve`, and runs the same cell on (6) a Jupyter kernel
(ipykernel via jupyter_client, execute request to idle). With --load it
first starts one busy process per CPU, so the figures also show a loaded
machine. Prints one JSON object: medians and 90th percentiles in ms, and
for the LSP peers the messages the client reads per call (the server's
notifications of the run, then its response).

Usage: /usr/bin/python3 bench/roundtrip.py --server bin/backyard-ls --floor FLOOR --monty WORKER [-n 2000] [--load]
"""
import argparse
import io
import json
import multiprocessing
import os
import statistics
import subprocess
import time


class LSP:
    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
        # Read as LSP clients do, in chunks: an unbuffered pipe's readline
        # reads one byte per system call, which charges each message the
        # server sends (a run's notifications) some twenty system calls.
        self.out = io.BufferedReader(self.p.stdout, 1 << 16)
        self.next = 0
        self.messages = 0  # messages read, for messages per call

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def read(self):
        n = 0
        while True:
            line = self.out.readline()
            if not line:
                raise EOFError("server closed its output")
            line = line.strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                n = int(line.split(b":")[1])
        data = self.out.read(n)
        if len(data) < n:
            raise EOFError("server closed its output inside a message")
        self.messages += 1
        return json.loads(data)

    def call(self, method, params):
        self.next += 1
        rid = self.next
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == rid and "method" not in m:
                if "error" in m:
                    raise RuntimeError(m["error"])
                return m["result"]
            if "method" in m and "id" in m:  # a server request: answer null
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": None})

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def close(self):
        try:
            self.call("shutdown", None)
            self.notify("exit", None)
        except (EOFError, BrokenPipeError):
            pass
        self.p.wait(timeout=10)


def lsp_times(argv, n):
    c = LSP(argv)
    c.call("initialize", {"processId": None, "rootUri": None, "capabilities": {"window": {"workDoneProgress": False}}})
    c.notify("initialized", {})
    uri = "file:///tmp/roundtrip.py"
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "x = 1\n"}})
    params = {"command": "backyard.runCell", "arguments": [{"uri": uri, "line": 0}]}
    for _ in range(50):  # warm up: kernel start, caches
        c.call("workspace/executeCommand", params)
    times = []
    read = c.messages
    for _ in range(n):
        t0 = time.perf_counter_ns()
        r = c.call("workspace/executeCommand", params)
        times.append((time.perf_counter_ns() - t0) / 1e6)
        assert r["executions"][0]["status"] == "ok", r
    messages = (c.messages - read) / n
    c.close()
    return times, messages


def jupyter_times(n):
    from jupyter_client.manager import KernelManager

    km = KernelManager()
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)

    def execute(code):
        msg_id = kc.execute(code)
        while True:
            msg = kc.get_iopub_msg(timeout=30)
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
        kc.get_shell_msg(timeout=30)

    for _ in range(20):
        execute("x = 1")
    times = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        execute("x = 1")
        times.append((time.perf_counter_ns() - t0) / 1e6)
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    return times


def busy():
    while True:
        pass


def summary(ts):
    ts = sorted(ts)
    return {"median_ms": statistics.median(ts), "p90_ms": ts[int(len(ts) * 0.9)], "n": len(ts)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--floor", required=True)
    ap.add_argument("--monty", required=True, help="the Monty worker the floor with a worker round trip uses")
    ap.add_argument("-n", type=int, default=2000)
    ap.add_argument("--jupyter-n", type=int, default=500)
    ap.add_argument("--load", action="store_true")
    a = ap.parse_args()
    load = []
    if a.load:
        load = [multiprocessing.Process(target=busy, daemon=True) for _ in range(os.cpu_count() or 1)]
        for p in load:
            p.start()
    try:
        peers = [
            ("floor", [a.floor]),
            ("floor_notify", [a.floor, "-notify"]),
            ("floor_worker", [a.floor, "-monty", a.monty]),
            ("floor_notify_worker", [a.floor, "-notify", "-monty", a.monty]),
            ("server", [a.server, "serve", "--backend", "monty"]),
        ]
        out = {"load": a.load}
        for name, argv in peers:
            times, msgs = lsp_times(argv, a.n)
            out[name] = dict(summary(times), messages_per_call=msgs)
        out["jupyter"] = summary(jupyter_times(a.jupyter_n))
    finally:
        for p in load:
            p.terminate()
    floor = out["floor"]["median_ms"]
    out["server_minus_floor_ms"] = out["server"]["median_ms"] - floor
    # What the notifications and the worker cost by themselves, and what
    # is left to the server's own code.
    out["notify_minus_floor_ms"] = out["floor_notify"]["median_ms"] - floor
    out["worker_minus_floor_ms"] = out["floor_worker"]["median_ms"] - floor
    out["notify_worker_minus_floor_ms"] = out["floor_notify_worker"]["median_ms"] - floor
    out["server_minus_notify_worker_ms"] = out["server"]["median_ms"] - out["floor_notify_worker"]["median_ms"]
    out["jupyter_over_server"] = out["jupyter"]["median_ms"] / out["server"]["median_ms"]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
