"""backyard_ls.ray on a real Ray cluster of two nodes on this machine
(scripts/test-ray.sh starts it with ray_cluster.py and names its folder in
BACKYARD_RAY_CLUSTER): order, ids, values, errors as results, an actor
killed and a node stopped mid-batch, Ray Data's map_batches."""

from __future__ import annotations

import array
import fcntl
import os
import signal
import termios
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import ray
from conftest import alive, command, descendants, wait_until
from ray_cluster import Cluster

from backyard_ls import BackendUnavailable, BadArgument, Execution
from backyard_ls.ray import Pool, SnippetScorer, run_batch

BASE = Path(os.environ.get("BACKYARD_RAY_CLUSTER", ""))


def alive_nodes() -> list[str]:
    return [str(n["NodeID"]) for n in ray.nodes() if n["Alive"]]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    if not (BASE / "cluster.json").is_file():
        pytest.fail("no Ray cluster: run scripts/test-ray.sh (BACKYARD_RAY_CLUSTER names its folder)")
    c = Cluster.load(BASE / "cluster.json")
    ray.init(address=c.address, log_to_driver=False)
    wait_until(lambda: len(alive_nodes()) == 2, "both nodes of the cluster")
    yield c
    ray.shutdown()


def lanes_of(pid: int) -> set[int]:
    """The backyard-ls api processes an actor process started."""
    return {p for p in descendants(pid) if "backyard-ls" in command(p)}


def assert_all_once_in_order(rs: list[Execution], n: int, value: Any) -> None:
    assert [r.id for r in rs] == list(range(n))
    bad = [r for r in rs if r.status != "ok" or r.value != value(r.id)]
    assert not bad, bad[:3]


def test_ten_thousand_snippets_in_order_on_both_nodes(cluster: Cluster) -> None:
    n = 10_000
    with run_batch((f"{i} * 3" for i in range(n)), backend="monty") as results:
        rs = list(results)
        actors = results.pool.actors
    assert_all_once_in_order(rs, n, lambda i: str(i * 3))
    assert {a.node for a in actors} == set(alive_nodes())
    assert all(a.chunks > 0 for a in actors), [(a.node, a.chunks) for a in actors]
    assert results.retried == 0


def test_a_short_batch_is_shared_by_every_actor(cluster: Cluster) -> None:
    with run_batch([f"{i}" for i in range(12)], backend="monty") as results:
        assert [r.value for r in results] == [str(i) for i in range(12)]
        assert all(a.chunks > 0 for a in results.pool.actors), [(a.node, a.chunks) for a in results.pool.actors]


def test_errors_in_snippets_are_results(cluster: Cluster) -> None:
    snippets = [
        "1 / 0",
        {"id": "name", "code": "undefined_name"},
        {"id": "slow", "code": "while True:\n    pass", "timeout": 0.3},
        "def f(:\n    pass",
        "print('hi')\n6 * 7",
    ]
    rs = list(run_batch(snippets, backend="monty", timeout=30, chunk_size=2))
    assert [r.id for r in rs] == [0, "name", "slow", 3, 4]
    assert [r.status for r in rs] == ["error", "error", "timeout", "error", "ok"]
    assert [rs[i].error.ename for i in (0, 1, 3)] == ["ZeroDivisionError", "NameError", "SyntaxError"]  # type: ignore[union-attr]
    assert rs[2].timed_out and rs[2].exit_code == 124
    assert rs[4].stdout == "hi\n" and rs[4].value == "42"


def test_status_and_value_read_off_the_line_are_the_records(cluster: Cluster) -> None:
    # Read before anything decodes the chunk, then against the decoded
    # records: escapes, non-ASCII, output that looks like a result, errors.
    snippets = [
        "1 / 0", "print('a\"b')\n'x\"y'", "import sys\nsys.stderr.write('e')\n'q'", "", "None", "x = 5",
        "'a\\nb'", "import sys\nsys.stderr.write('e\\n')\n4", "'\u00e9\u4e2d'", "[1, 'two', {'3': 4}]",
        "print(',\"result\":{\"text\":\"no\"}')", "import sys\nsys.stderr.write(',\"result\":{\"text\":\"no\"}')\n5",
        "'\\\\'", "def f(:\n    pass", {"id": "slow", "code": "while True:\n    pass", "timeout": 0.3},
    ]
    rs = list(run_batch(snippets * 3, backend="monty", chunk_size=7))
    read = [(r.status, r.value) for r in rs]
    recs = [r.to_record() for r in rs]
    assert read == [(rec["status"], (rec.get("result") or {}).get("text")) for rec in recs]
    assert read[:3] == [("error", None), ("ok", "'x\"y'"), ("ok", "'q'")] and read[14] == ("timeout", None)


def test_unordered_gives_every_result_once(cluster: Cluster) -> None:
    n = 3000
    rs = list(run_batch([f"{i} - 1" for i in range(n)], backend="monty", ordered=False, chunk_size=100))
    assert sorted(r.id for r in rs) == list(range(n))
    assert all(r.value == str(r.id - 1) for r in rs)


def test_bad_snippets_and_options_are_clear_errors(cluster: Cluster) -> None:
    with pytest.raises(BadArgument, match="cpus_per_actor"):
        Pool(cpus_per_actor=0)
    with Pool(backend="monty") as pool:
        with pytest.raises(BadArgument, match="chunk_size"):
            pool.run_batch(["1"], chunk_size=0)
        with pytest.raises(BadArgument, match="snippet 1"):
            list(pool.run_batch(["1", 2]))  # type: ignore[list-item]
        # The pool still serves.
        assert [r.value for r in pool.run_batch(["1 + 1"])] == ["2"]


def test_a_lane_that_cannot_start_is_a_clear_error(cluster: Cluster) -> None:
    # The lane's own error, as run_batch raises it on one machine.
    with pytest.raises(BadArgument, match="^monty: \"/nonexistent/monty\" is not an executable file$"):
        run_batch(["1"], backend="monty", monty="/nonexistent/monty")
    # An actor that cannot be placed (no node has 64 CPUs to give).
    with pytest.raises(BackendUnavailable, match="no backyard-ls lane started on the Ray cluster: .*not schedulable"):
        run_batch(["1"], backend="monty", num_cpus=64)


def test_run_batch_starts_on_the_first_lane_and_drops_an_actor_that_never_starts(cluster: Cluster) -> None:
    # A pool holds the head's one CPU: run_batch's actor there cannot
    # start; the batch runs on the other node's, and the chunks handed to
    # the waiting actor run there once it is dropped.
    head = next(node for node in cluster.nodes if node.head).node_id()
    with Pool(backend="monty", nodes=[head]):
        n = 2000
        with run_batch([f"{i} + 3" for i in range(n)], backend="monty", start_timeout=20) as results:
            rs = list(results)
            actors = results.pool.actors
        assert_all_once_in_order(rs, n, lambda i: str(i + 3))
        assert results.retried > 0
        waiting = [a for a in actors if a.node == head]
        assert waiting and all(a.chunks == 0 and not a.alive for a in waiting)
        assert any(a.chunks > 0 for a in actors if a.node != head)


def test_a_pool_keeps_its_lanes_between_batches(cluster: Cluster) -> None:
    with Pool(backend="monty") as pool:
        pids = ray.get([a.handle.ready.remote() for a in pool.actors])
        for k in range(3):
            rs = list(pool.run_batch([f"{k} + {i}" for i in range(500)], chunk_size=50))
            assert_all_once_in_order(rs, 500, lambda i: str(k + i))
        assert ray.get([a.handle.ready.remote() for a in pool.actors]) == pids
        assert all(lanes_of(pid) for _, pid in pids)
    # Closed: the lanes' processes are gone with their actors.
    wait_until(lambda: not any(alive(pid) for _, pid in pids), "the pool's actors to exit")


def test_an_actor_killed_mid_batch(cluster: Cluster) -> None:
    n = 20_000
    with Pool(backend="monty") as pool:
        victim = pool.actors[1]
        _, pid = ray.get(victim.handle.ready.remote())
        lanes = lanes_of(pid)
        assert lanes
        results = pool.run_batch((f"{i} + 1" for i in range(n)), chunk_size=128)
        rs: list[Execution] = []
        for r in results:
            rs.append(r)
            if len(rs) == 1000:
                assert victim.inflight > 0
                ray.kill(victim.handle)
        assert_all_once_in_order(rs, n, lambda i: str(i + 1))
        assert results.retried > 0
        assert not victim.alive and pool.actors[0].alive
    # The killed actor's lane went with it.
    wait_until(lambda: not any(alive(p) for p in lanes), "the killed actor's backyard-ls api to exit")


def stopped(pid: int) -> bool:
    """Every thread of pid is stopped (SIGSTOP): none reads anything more."""
    states = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as f:
                states.append(f.read().rsplit(")", 1)[1].split()[0])
        except (FileNotFoundError, IndexError):  # a thread that ends while read
            pass
    return bool(states) and all(s == "T" for s in states)


def unread(pid: int) -> int:
    """The bytes written to pid's stdin, a pipe, that it has not read yet."""
    fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK)
    try:
        n = array.array("i", [0])
        fcntl.ioctl(fd, termios.FIONREAD, n)
        return n[0]
    finally:
        os.close(fd)


def test_a_lane_process_killed_mid_batch(cluster: Cluster) -> None:
    # The actor lives on: its chunks that were in the dead lane run again,
    # on a new lane it starts. The lane is stopped before the batch and
    # killed once a chunk is in its input: it dies with its chunks unrun,
    # however quick the other lane is.
    n = 10_000
    with Pool(backend="monty") as pool:
        victim = pool.actors[0]
        _, pid = ray.get(victim.handle.ready.remote())
        lanes = {p for p in lanes_of(pid) if " batch " in command(p)}
        assert len(lanes) == 1, [command(p) for p in lanes_of(pid)]
        lane = lanes.pop()
        workers = descendants(lane)
        assert workers
        os.kill(lane, signal.SIGSTOP)
        # A thread still on its way to the stop could read the chunk first.
        wait_until(lambda: stopped(lane), "the lane to stop")

        def kill_once_fed() -> None:
            try:
                wait_until(lambda: unread(lane) > 0, "a chunk in the stopped lane's input")
            finally:
                os.kill(lane, signal.SIGKILL)  # the batch goes on, whatever the wait

        with ThreadPoolExecutor(1) as killer:
            killed = killer.submit(kill_once_fed)
            results = pool.run_batch((f"{i} + 2" for i in range(n)), chunk_size=128)
            rs = list(results)
            killed.result()
        assert_all_once_in_order(rs, n, lambda i: str(i + 2))
        assert results.retried > 0
        assert victim.alive and victim.chunks > 0
        fresh = {p for p in lanes_of(pid) if " batch " in command(p)}
        assert fresh and lane not in fresh
        fresh |= set().union(*map(descendants, fresh))
    # The dead lane's workers went with it; the new lane and its workers with the pool.
    wait_until(lambda: not any(alive(p) for p in workers | fresh), "the lanes' processes to exit")


def test_every_actor_killed_mid_batch_brings_new_ones(cluster: Cluster) -> None:
    n = 5000
    with Pool(backend="monty") as pool:
        first = list(pool.actors)
        results = pool.run_batch((f"{i} - 7" for i in range(n)), chunk_size=100)
        rs: list[Execution] = []
        for r in results:
            rs.append(r)
            if len(rs) == 500:
                for a in first:
                    ray.kill(a.handle)
        assert_all_once_in_order(rs, n, lambda i: str(i - 7))
        assert results.retried > 0
        assert not any(a.alive for a in first)
        fresh = [a for a in pool.actors if a.alive]
        assert {a.node for a in fresh} == set(alive_nodes())
        assert not {id(a) for a in fresh} & {id(a) for a in first}


def test_map_batches_through_ray_data(cluster: Cluster) -> None:
    codes = [f"{i} ** 2" for i in range(300)] + ["[][1]"]
    ds = ray.data.from_items([{"n": i, "code": c} for i, c in enumerate(codes)])
    out = ds.map_batches(SnippetScorer, fn_constructor_kwargs={"backend": "monty"}, concurrency=2, num_cpus=0.25, batch_size=64)
    rows = sorted(out.take_all(), key=lambda r: r["n"])
    assert [r["n"] for r in rows] == list(range(301))
    assert [r["value"] for r in rows[:300]] == [str(i * i) for i in range(300)]
    assert all(r["status"] == "ok" and r["exit_code"] == 0 and r["error"] is None for r in rows[:300])
    last = rows[300]
    assert last["status"] == "error" and last["exit_code"] == 1 and last["value"] is None
    assert last["error"] == "IndexError: list index out of range"
    assert last["code"] == "[][1]"


def test_a_node_stopped_mid_batch(cluster: Cluster) -> None:
    # Last: it stops the second node (then starts a new one for what follows).
    worker = next(node for node in cluster.nodes if not node.head)
    dead = worker.node_id()
    n = 20_000
    with Pool(backend="monty") as pool:
        victims = [a for a in pool.actors if a.node == dead]
        assert victims and len(pool.actors) == 2
        results = pool.run_batch((f"{i} * 5" for i in range(n)), chunk_size=128)
        rs: list[Execution] = []
        for r in results:
            rs.append(r)
            if len(rs) == 1000:
                assert any(a.inflight for a in victims)
                worker.kill()  # every process of the node: raylet, its workers, their lanes
        assert_all_once_in_order(rs, n, lambda i: str(i * 5))
        assert results.retried > 0
        assert not any(a.alive for a in victims)
    cluster.nodes.remove(worker)
    cluster.add(BASE)
    cluster.save(BASE / "cluster.json")
    wait_until(lambda: len(alive_nodes()) == 2 and dead not in alive_nodes(), "the new second node")
