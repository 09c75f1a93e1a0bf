"""`backyard-ls http` through SandboxFusion's own client (PyPI sandbox-fusion
0.3.7) and through verl's request JSON, against the real binary on Monty and
in containers (runc, runsc) — scripts/test-http.sh runs it.

Env: BACKYARD_LS (the binary), BACKYARD_TEST_IMAGE (default backyard-python:test).
"""
import asyncio
import base64
import json
import os
import re
import signal
import subprocess
import threading
import time

import pytest
import requests
import sandbox_fusion as sf

BINARY = os.environ["BACKYARD_LS"]
IMAGE = os.environ.get("BACKYARD_TEST_IMAGE", "backyard-python:test")


class Server:
    """One `backyard-ls http` process; stop() sends SIGTERM and checks that
    it exits cleanly and leaves no container."""

    def __init__(self, *flags, env=None, listen="127.0.0.1:0"):
        self.log = open(os.devnull, "w")
        self.proc = subprocess.Popen(
            [BINARY, "http", "--listen", listen, "--image", IMAGE, "--timeout", "120", "--log-level", "info", *flags],
            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
        line = self.proc.stderr.readline()
        m = re.search(r"serving on (http://\S+)", line)
        if not m:
            self.proc.kill()
            raise RuntimeError("the server did not start: %s%s" % (line, self.proc.stderr.read()))
        self.url = m.group(1)
        self.stderr = []
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()

    def containers(self):
        out = subprocess.run(["docker", "ps", "-aq", "--filter", "label=dev.backyard-ls.pid=%d" % self.proc.pid],
                             capture_output=True, text=True, check=True).stdout
        return out.split()

    def metric(self, name, **auth):
        text = requests.get(self.url + "/metrics", **auth).text
        m = re.search(r"(?m)^" + re.escape(name) + r" (\S+)$", text)
        return float(m.group(1)) if m else 0.0

    def wait_metric(self, name, at_least, **auth):
        while self.metric(name, **auth) < at_least:
            time.sleep(0.01)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=120)
        assert code == 0, "exit status %d: %s" % (code, "".join(self.stderr))
        assert self.containers() == [], "containers left behind"


CONFIGS = {
    "monty": ["--backend", "monty"],
    "runc": ["--backend", "container", "--runtime", "runc"],
    "runsc": ["--backend", "container", "--runtime", "runsc"],
    "auto": ["--backend", "auto", "--runtime", "runc"],
}


@pytest.fixture(scope="module", params=list(CONFIGS))
def server(request):
    s = Server(*CONFIGS[request.param], "--parallel", "2")
    s.name = request.param
    yield s
    s.stop()


def b64(data):
    return base64.b64encode(data).decode()


def test_run_code_sync(server):
    resp = sf.run_code(sf.RunCodeRequest(code="x = 6 * 7\nprint(x)\nx", language="python"), endpoint=server.url, max_attempts=1)
    assert resp.status == sf.RunStatus.Success and resp.message == "" and resp.compile_result is None
    r = resp.run_result
    assert r.status == sf.CommandRunStatus.Finished and r.return_code == 0 and r.stdout == "42\n" and r.stderr == ""
    assert r.execution_time >= 0 and resp.files == {}
    assert sf.summary_run_code_result(resp, sf.SummaryMapping()) == "Success"


def test_run_code_fields(server):
    run = lambda **kw: sf.run_code(sf.RunCodeRequest(language="python", **kw), endpoint=server.url, max_attempts=1)
    resp = run(code="def f(n):\n    return 10 / n\nf(0)")
    assert resp.status == sf.RunStatus.Failed and resp.run_result.return_code == 1
    assert resp.run_result.stderr.startswith("Traceback (most recent call last):\n")
    assert resp.run_result.stderr.endswith("ZeroDivisionError: division by zero\n")
    assert sf.summary_run_code_result(resp, sf.SummaryMapping(RunFailed="RF")) == "RF"
    if server.name != "monty":  # Monty has no sys.exit: auto runs it in the container
        resp = run(code="import sys\nsys.exit(5)")
        assert resp.status == sf.RunStatus.Failed and resp.run_result.return_code == 5
    resp = run(code="while True:\n    pass", run_timeout=1)
    assert resp.status == sf.RunStatus.Failed and resp.run_result.status == sf.CommandRunStatus.TimeLimitExceeded
    assert resp.run_result.return_code is None
    assert sf.summary_run_code_result(resp, sf.SummaryMapping(RunTimeout="TLE")) == "TLE"
    if server.name == "monty":
        return  # stdin and files need a container
    resp = run(code="a, b = map(int, input().split())\nprint(a + b)", stdin="40 2")
    assert resp.status == sf.RunStatus.Success and resp.run_result.stdout == "42\n"
    data = bytes(range(256))
    resp = run(code="import os\nos.makedirs('out', exist_ok=True)\nopen('out/r.bin', 'wb').write(open('in.bin', 'rb').read()[::-1])",
               files={"in.bin": b64(data)}, fetch_files=["out/r.bin", "none.txt"])
    assert resp.status == sf.RunStatus.Success and resp.files == {"out/r.bin": b64(data[::-1])}


def test_run_code_async_and_concurrent(server):
    async def many():
        reqs = [sf.RunCodeRequest(code="print(%d * 2)" % i, language="python") for i in range(20)]
        return await asyncio.gather(*(sf.run_code_async(r, endpoint=server.url, max_attempts=1) for r in reqs))

    for i, resp in enumerate(asyncio.run(many())):
        assert resp.status == sf.RunStatus.Success and resp.run_result.stdout == "%d\n" % (i * 2)
    sf.set_endpoint(server.url)
    results = sf.run_concurrent(sf.run_code, args=[[sf.RunCodeRequest(code="print(%d)" % i, language="python")] for i in range(40)], concurrency=16)
    assert [r.run_result.stdout for r in results] == ["%d\n" % i for i in range(40)]


def test_run_jupyter(server):
    resp = sf.run_jupyter(sf.RunJupyterRequest(cells=["a = 123", "a", "print(a)", "import sys; print('e', file=sys.stderr)", "raise RuntimeError('x')", "a + 1"]),
                          endpoint=server.url, max_attempts=1)
    assert resp.status == sf.RunStatus.Success and resp.driver.status == sf.CommandRunStatus.Finished
    cells = resp.cells
    assert [c.stdout for c in cells] == ["", "", "123\n", "", "", ""]
    assert cells[1].display == [{"text/plain": "123"}] and cells[5].display == [{"text/plain": "124"}]
    assert cells[3].stderr == "e\n"
    assert len(cells[4].error) == 1 and cells[4].error[0]["ename"] == "RuntimeError" and cells[4].error[0]["evalue"] == "x"
    assert cells[4].error[0]["traceback"][-1] == "RuntimeError: x"

    async def run():
        return await sf.run_jupyter_async(sf.RunJupyterRequest(cells=["x = 2", "x ** 10"], files={"f.txt": b64(b"hi")},
                                                               fetch_files=["f.txt"]), endpoint=server.url, max_attempts=1)

    resp = asyncio.run(run())
    assert resp.status == sf.RunStatus.Success and resp.cells[1].display == [{"text/plain": "1024"}] and resp.files == {"f.txt": b64(b"hi")}
    resp = sf.run_jupyter(sf.RunJupyterRequest(cells=["while True:\n    pass", "1"], total_timeout=1), endpoint=server.url, max_attempts=1)
    assert resp.status == sf.RunStatus.Failed and resp.driver.status == sf.CommandRunStatus.TimeLimitExceeded


def test_verl_request(server):
    """The JSON verl's call_sandbox_api posts, and its memory limit."""
    payload = {"compile_timeout": 10, "run_timeout": 10, "code": "import sys\nprint(sum(map(int, sys.stdin.read().split())))",
               "stdin": "1 2 3", "memory_limit_MB": 1024, "language": "python", "files": {}, "fetch_files": []}
    if server.name == "monty":
        payload["code"], payload["stdin"] = "print(1 + 2 + 3)", None
    r = requests.post(server.url + "/run_code", json=payload, timeout=60)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "Success" and body["run_result"]["stdout"] == "6\n" and body["compile_result"] is None
    assert set(body) == {"status", "message", "compile_result", "run_result", "executor_pod_name", "files"}
    assert set(body["run_result"]) == {"status", "execution_time", "return_code", "stdout", "stderr"}
    payload.update(code="x = bytearray(300 * 1024 * 1024)\nprint('allocated')", stdin=None, memory_limit_MB=64)
    body = requests.post(server.url + "/run_code", json=payload, timeout=60).json()
    assert body["status"] == "Failed" and body["run_result"]["stdout"] == "" and body["run_result"]["return_code"] != 0


def test_bad_requests(server):
    url = server.url + "/run_code"
    r = requests.post(url, data=b'{"code": "print(1)", ', timeout=30)
    assert r.status_code == 422 and r.json()["detail"][0]["type"] == "json_invalid"
    r = requests.post(url, json={"code": "print(1)", "language": "brainfuck"}, timeout=30)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "language"]
    r = requests.post(url, json={"code": "print(1)", "language": "cpp"}, timeout=30)
    assert r.status_code == 200 and r.json()["status"] == "SandboxError" and "Python only" in r.json()["message"]
    with pytest.raises(Exception, match="Sandbox responded with error"):
        sf.run_code(sf.RunCodeRequest(code="int main() {}", language="cpp"), endpoint=server.url, max_attempts=1)
    r = requests.post(url, data=b'{"code": "' + b"x" * (40 << 20) + b'", "language": "python"}', timeout=60)
    assert r.status_code == 413 and "larger than" in r.json()["detail"]
    resp = sf.run_code(sf.RunCodeRequest(code="print('still here')", language="python"), endpoint=server.url, max_attempts=1)
    assert resp.run_result.stdout == "still here\n"


@pytest.mark.parametrize("backend", ["monty", "runc"])
def test_overload_and_disconnect(backend):
    """Past --max-running and --max-queued: 429 with Retry-After at once. A
    client that goes away stops its run: the slot frees long before the run's
    time limit."""
    s = Server(*CONFIGS[backend], "--parallel", "1", "--max-running", "1", "--max-queued", "0")
    try:
        sf.run_code(sf.RunCodeRequest(code="print('warm')", language="python"), endpoint=s.url, max_attempts=1)
        endless = {"code": "import time\nwhile True:\n    time.sleep(0.01)", "language": "python", "run_timeout": 100}
        t = threading.Thread(target=lambda: pytest.raises(requests.exceptions.ReadTimeout, requests.post, s.url + "/run_code", json=endless, timeout=3))
        t.start()
        s.wait_metric("backyard_runs_in_progress", 1)
        r = requests.post(s.url + "/run_code", json={"code": "print(1)", "language": "python"}, timeout=30)
        assert r.status_code == 429 and r.headers["Retry-After"] == "1" and "busy" in r.json()["detail"]
        t.join()  # the client gave up after 3 s
        s.wait_metric('backyard_runs_total{backend="%s",endpoint="run_code",status="interrupted"}' % ("monty" if backend == "monty" else "container"), 1)
        resp = sf.run_code(sf.RunCodeRequest(code="print('free')", language="python"), endpoint=s.url, max_attempts=1)
        assert resp.run_result.stdout == "free\n"
    finally:
        s.stop()


@pytest.mark.parametrize("runtime", ["runc", "runsc"])
def test_sigterm_mid_run(runtime):
    """SIGTERM while a run is in progress: it may finish until
    --shutdown-timeout, then it is stopped (its client gets a SandboxError),
    the process exits 0 and no container is left."""
    s = Server("--backend", "container", "--runtime", runtime, "--shutdown-timeout", "1s")
    got = {}

    def run():
        got["r"] = requests.post(s.url + "/run_code", json={"code": "import time\ntime.sleep(100)", "language": "python", "run_timeout": 100}, timeout=60)

    t = threading.Thread(target=run)
    t.start()
    s.wait_metric("backyard_runs_in_progress", 1)
    while not s.containers():
        time.sleep(0.01)
    s.stop()  # exit status 0, no container
    t.join()
    assert got["r"].status_code == 200 and got["r"].json()["status"] == "SandboxError" and "shutting down" in got["r"].json()["message"]


def test_token_beyond_loopback():
    """Beyond loopback the server will not start without a token; with one,
    a request needs it, as a bearer token or in the URL (what the
    sandbox-fusion client and verl can send)."""
    p = subprocess.run([BINARY, "http", "--listen", "0.0.0.0:0", "--backend", "monty"], capture_output=True, text=True, timeout=60,
                       env={k: v for k, v in os.environ.items() if k != "BACKYARD_LS_TOKEN"})
    assert p.returncode == 2 and "bearer token" in p.stderr
    s = Server("--backend", "monty", listen="0.0.0.0:0", env={"BACKYARD_LS_TOKEN": "tok3n"})
    try:
        port = s.url.rsplit(":", 1)[1]
        req = sf.RunCodeRequest(code="print('authorized')", language="python")
        with pytest.raises(Exception, match="401"):
            sf.run_code(req, endpoint="http://127.0.0.1:%s" % port, max_attempts=1)
        assert sf.run_code(req, endpoint="http://backyard:tok3n@127.0.0.1:%s" % port, max_attempts=1).run_result.stdout == "authorized\n"
        assert asyncio.run(sf.run_code_async(req, endpoint="http://backyard:tok3n@127.0.0.1:%s" % port, max_attempts=1)).run_result.stdout == "authorized\n"
        r = requests.post("http://127.0.0.1:%s/run_code" % port, json=req.dict(), headers={"Authorization": "Bearer tok3n"}, timeout=30)
        assert r.status_code == 200
        assert requests.get("http://127.0.0.1:%s/healthz" % port, timeout=30).status_code == 200
    finally:
        s.stop()
