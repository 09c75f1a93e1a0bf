#!/usr/bin/python3
"""Peer measurements on a Jupyter kernel (ipykernel via jupyter_client).

Runs the same cells the backyard-ls benchmarks run, on Debian's
python3-ipykernel + python3-jupyter-client, and prints one JSON object with
medians in milliseconds (and the kernel's RSS in MiB), so scripts/bench.sh
can report ratios measured in the same run.

Usage: /usr/bin/python3 bench/jupyter_peer.py [--cells N] [--starts N]
"""
import argparse
import json
import os
import statistics
import time

from jupyter_client.manager import KernelManager


def execute(kc, code):
    """Execute code; wait for the shell reply and iopub idle. Returns stdout."""
    msg_id = kc.execute(code, store_history=True)
    out = []
    idle = False
    while not idle:
        msg = kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        t = msg["msg_type"]
        if t == "stream":
            out.append(msg["content"]["text"])
        elif t == "status" and msg["content"]["execution_state"] == "idle":
            idle = True
    reply = kc.get_shell_msg(timeout=30)
    assert reply["content"]["status"] == "ok", reply["content"]
    return "".join(out)


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    # Debian's kernelspec starts debugpy, which warns about frozen modules.
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    ap = argparse.ArgumentParser()
    ap.add_argument("--cells", type=int, default=500)
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--prints", type=int, default=20)
    args = ap.parse_args()

    starts = []
    for i in range(args.starts + 1):
        t = time.perf_counter()
        km = KernelManager(kernel_name="python3")
        km.start_kernel()
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=60)
        if i > 0:  # the first start warms the page cache
            starts.append((time.perf_counter() - t) * 1e3)
        if i < args.starts:
            kc.stop_channels()
            km.shutdown_kernel(now=True)

    for _ in range(20):
        execute(kc, "pass")
    execute(kc, "x = 0")
    cells = []
    for _ in range(args.cells):
        t = time.perf_counter()
        execute(kc, "x = x + 1")
        cells.append((time.perf_counter() - t) * 1e3)
    assert execute(kc, "print(x)").strip() == str(args.cells)

    prints = []
    for _ in range(args.prints):
        t = time.perf_counter()
        out = execute(kc, "for i in range(1000):\n    print(i)")
        prints.append((time.perf_counter() - t) * 1e3)
        assert out.count("\n") == 1000

    pid = km.provisioner.process.pid if hasattr(km, "provisioner") else km.kernel.pid
    result = {
        "peer": "jupyter",
        "cold_start_ms": statistics.median(starts),
        "cell_ms": statistics.median(cells),
        "cell_p90_ms": sorted(cells)[len(cells) * 9 // 10],
        "print1000_ms": statistics.median(prints),
        "kernel_rss_mib": rss_mib(pid),
    }
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
