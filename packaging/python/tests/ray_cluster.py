"""A real local Ray cluster of separate nodes on this machine (each a
``ray start`` with its own temp dir, ports and process group), for the Ray
tests and bench. Never ``ray stop``: that stops every Ray of the machine;
a node here is stopped by killing its own processes.

    python ray_cluster.py up DIR [NODES]   start a head and NODES-1 more (default 2); DIR/cluster.json
    python ray_cluster.py down DIR         stop them all
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from conftest import alive, command, descendants

# The head notices a dead node within a few seconds instead of the default ~30.
HEALTH = {
    "RAY_health_check_initial_delay_ms": "1000",
    "RAY_health_check_period_ms": "1000",
    "RAY_health_check_timeout_ms": "1000",
    "RAY_health_check_failure_threshold": "3",
}


def _free_ports(n: int) -> list[int]:
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def _ray() -> str:
    return str(Path(sys.executable).parent / "ray")


@dataclass
class Node:
    temp_dir: str
    pgid: int
    head: bool

    def node_id(self) -> str:
        """The node's id in the cluster (its raylet's socket lives in its temp dir)."""
        import ray

        for n in ray.nodes():
            if n["Alive"] and n["RayletSocketName"].startswith(self.temp_dir + "/"):
                return str(n["NodeID"])
        raise LookupError(f"no alive node under {self.temp_dir}")

    def pids(self) -> set[int]:
        """Every live process of the node: its process group and all their descendants."""
        group = set()
        for d in os.listdir("/proc"):
            if d.isdigit() and alive(int(d)):
                try:
                    if os.getpgid(int(d)) == self.pgid:
                        group.add(int(d))
                except OSError:
                    pass
        return group.union(*(descendants(p) for p in group))

    def kill(self, sig: int = signal.SIGKILL) -> None:
        for pid in self.pids():
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def stop(self) -> None:
        """SIGTERM (the raylet stops its workers), then SIGKILL what is left
        after 5 s (the GCS server does not end on SIGTERM)."""
        self.kill(signal.SIGTERM)
        deadline = time.monotonic() + 5
        while self.pids() and time.monotonic() < deadline:
            time.sleep(0.1)
        self.kill(signal.SIGKILL)


def start(temp_dir: Path, address: str | None) -> Node:
    """One node: the head when address is None."""
    temp_dir.mkdir(parents=True, exist_ok=True)
    args = [_ray(), "start", "--num-cpus=1", f"--temp-dir={temp_dir}", "--object-store-memory=200000000",
            "--disable-usage-stats"]
    agent, = _free_ports(1)
    args.append(f"--dashboard-agent-listen-port={agent}")
    if address is None:
        gcs, dash = _free_ports(2)
        args += ["--head", f"--port={gcs}", "--include-dashboard=false", f"--dashboard-port={dash}"]
    else:
        args.append(f"--address={address}")
    env = {**os.environ, **HEALTH}
    # Its own session: the node's processes share a process group to stop.
    proc = subprocess.run(args, env=env, capture_output=True, text=True, start_new_session=True)
    if proc.returncode != 0:
        raise RuntimeError(f"ray start failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    raylets = [n for n in _pgids_of(str(temp_dir))]
    if not raylets:
        raise RuntimeError(f"ray start left no raylet under {temp_dir}")
    return Node(str(temp_dir), raylets[0], address is None)


def _pgids_of(temp_dir: str) -> list[int]:
    """The process groups of the raylets whose command line names temp_dir."""
    out = []
    for d in os.listdir("/proc"):
        cmd = command(int(d)) if d.isdigit() else ""
        if cmd.split(" ")[0].endswith("/raylet") and temp_dir + "/" in cmd:
            try:
                out.append(os.getpgid(int(d)))
            except OSError:
                pass
    return out


@dataclass
class Cluster:
    address: str
    nodes: list[Node]

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"address": self.address, "nodes": [asdict(n) for n in self.nodes]}))

    @classmethod
    def load(cls, path: Path) -> Cluster:
        d = json.loads(path.read_text())
        return cls(d["address"], [Node(**n) for n in d["nodes"]])

    def add(self, base: Path) -> Node:
        """Starts one more node (in a new temp dir under base)."""
        # Short: the node's sockets' paths must stay within 107 bytes.
        i = 1
        while (base / f"n{i}").exists():
            i += 1
        n = start(base / f"n{i}", self.address)
        self.nodes.append(n)
        return n

    def down(self) -> None:
        for n in reversed(self.nodes):
            n.stop()


def up(base: Path, count: int) -> Cluster:
    head = start(base / "h", None)
    address = (base / "h" / "ray_current_cluster").read_text().strip()
    c = Cluster(address, [head])
    try:
        for _ in range(count - 1):
            c.add(base)
    except BaseException:
        c.down()
        raise
    return c


def main() -> None:
    cmd, base = sys.argv[1], Path(sys.argv[2]).resolve()
    if cmd == "up":
        c = up(base, int(sys.argv[3]) if len(sys.argv) > 3 else 2)
        c.save(base / "cluster.json")
        print(c.address)
    elif cmd == "down":
        f = base / "cluster.json"
        if f.exists():
            Cluster.load(f).down()
    else:
        sys.exit(f"usage: {sys.argv[0]} up|down DIR [NODES]")


if __name__ == "__main__":
    main()
