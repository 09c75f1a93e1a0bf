"""deploy/: the Kubernetes manifests say what deploy/README.md says, and each
pod's container runs as Kubernetes would start it (the manifest's args, user,
read-only root, environment) from the image deploy/Dockerfile builds — the
Monty pod under gVisor, the node pod with the engine's socket. No cluster runs
here (deploy/README.md, "What is tested here").

Env: BACKYARD_TEST_IMAGE (the kernel image, and the server image's base: no
registry is reachable).
"""
import base64
import json
import os
import re
import subprocess
import time

import pytest
import requests
import sandbox_fusion as sf
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGE = os.environ.get("BACKYARD_TEST_IMAGE", "backyard-python:test")
SERVER_IMAGE = "backyard-ls-server:test"
TOKEN = "t0ken-for-the-test"


def manifests(name):
    with open(os.path.join(ROOT, "deploy", name)) as f:
        return {d["kind"]: d for d in yaml.safe_load_all(f)}


def pod(docs, kind):
    spec = docs[kind]["spec"]["template"]["spec"]
    return spec, spec["containers"][0]


def test_manifests():
    docs = manifests("monty-gvisor.yaml")
    assert docs["RuntimeClass"]["handler"] == "runsc"
    spec, c = pod(docs, "Deployment")
    assert spec["runtimeClassName"] == docs["RuntimeClass"]["metadata"]["name"]
    assert spec["automountServiceAccountToken"] is False and spec["securityContext"]["runAsNonRoot"] is True
    assert c["securityContext"] == {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True, "capabilities": {"drop": ["ALL"]}}
    assert c["args"][c["args"].index("--backend") + 1] == "monty" and not any(v.get("hostPath") for v in spec.get("volumes", []))
    for docs in (docs, manifests("node-engine.yaml")):
        kind = "Deployment" if "Deployment" in docs else "DaemonSet"
        spec, c = pod(docs, kind)
        env = {e["name"]: e for e in c["env"]}
        assert env["BACKYARD_LS_TOKEN"]["valueFrom"]["secretKeyRef"]["name"] == docs["Secret"]["metadata"]["name"]
        assert env["MY_POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
        assert c["readinessProbe"]["httpGet"]["path"] == "/healthz" and c["livenessProbe"]["httpGet"]["path"] == "/healthz"
        assert docs["Service"]["spec"]["selector"] == docs[kind]["spec"]["selector"]["matchLabels"]
        grace = spec["terminationGracePeriodSeconds"]
        shutdown = c["args"][c["args"].index("--shutdown-timeout") + 1]
        assert int(shutdown.rstrip("s")) < grace
    spec, c = pod(manifests("node-engine.yaml"), "DaemonSet")
    assert {v["name"]: v["hostPath"]["path"] for v in spec["volumes"] if "hostPath" in v}["engine"] == "/var/run/docker.sock"
    assert c["args"][c["args"].index("--backend") + 1] == "auto"


@pytest.fixture(scope="module")
def server_image():
    out = subprocess.run([os.path.join(ROOT, "deploy", "build-image.sh")], env={**os.environ, "BASE": IMAGE, "TAG": SERVER_IMAGE},
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    yield SERVER_IMAGE
    subprocess.run(["docker", "rmi", "-f", SERVER_IMAGE], capture_output=True)


def run_pod(docs, kind, *docker_flags, args=None):
    """Starts the pod's container as its manifest says; returns its ID."""
    spec, c = pod(docs, kind)
    flags = ["--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "-e", "BACKYARD_LS_TOKEN=" + TOKEN,
             "-e", "MY_POD_NAME=pod-7", "--hostname", "pod-7"]
    user = c["securityContext"].get("runAsUser", spec.get("securityContext", {}).get("runAsUser"))
    flags += ["--user", "%d:%d" % (user, user)]
    for m in c["volumeMounts"]:
        vol = next(v for v in spec["volumes"] if v["name"] == m["name"])
        if "emptyDir" in vol:
            flags += ["--tmpfs", m["mountPath"]]
        else:
            flags += ["-v", "%s:%s" % (vol["hostPath"]["path"], m["mountPath"])]
    for e in c["env"]:
        if "value" in e:
            flags += ["-e", "%s=%s" % (e["name"], e["value"])]
    out = subprocess.run(["docker", "run", "-d", *flags, *docker_flags, SERVER_IMAGE, *(args or c["args"])], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    cid = out.stdout.strip()
    while "serving on" not in subprocess.run(["docker", "logs", cid], capture_output=True, text=True).stderr:
        assert subprocess.run(["docker", "inspect", "-f", "{{.State.Running}}", cid], capture_output=True, text=True).stdout.strip() == "true", \
            subprocess.run(["docker", "logs", cid], capture_output=True, text=True).stderr
        time.sleep(0.05)
    return cid


def stop_pod(cid):
    """SIGTERM, as the kubelet stops a pod: exit status 0, nothing left."""
    subprocess.run(["docker", "stop", "-t", "30", cid], capture_output=True, check=True)
    code = subprocess.run(["docker", "inspect", "-f", "{{.State.ExitCode}}", cid], capture_output=True, text=True).stdout.strip()
    logs = subprocess.run(["docker", "logs", cid], capture_output=True, text=True).stderr
    subprocess.run(["docker", "rm", cid], capture_output=True)
    assert code == "0", logs
    left = subprocess.run(["docker", "ps", "-aq", "--filter", "label=dev.backyard-ls.host=pod-7"], capture_output=True, text=True).stdout.split()
    assert left == [], "containers left behind"


def test_monty_pod_under_gvisor(server_image):
    """The test machine's runsc has no network (it is registered with
    --network=none), so the client runs inside the sandbox, as a sidecar
    would: verl's request JSON with the token in the URL."""
    docs = manifests("monty-gvisor.yaml")
    cid = run_pod(docs, "Deployment", "--runtime", "runsc")
    try:
        client = """
import json, urllib.request, base64
def post(body, auth=True):
    req = urllib.request.Request("http://127.0.0.1:8080/run_code", json.dumps(body).encode(), {"Content-Type": "application/json"})
    if auth:
        req.add_header("Authorization", "Basic " + base64.b64encode(b"backyard:%s").decode())
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, None
print(json.dumps([post({"code": "print(sum(range(10)))", "language": "python", "memory_limit_MB": 1024}),
                  post({"code": "import numpy", "language": "python"}),
                  post({"code": "print(1)", "language": "python"}, auth=False)]))
""" % TOKEN
        out = subprocess.run(["docker", "exec", cid, "python3", "-c", client], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        ok, numpy, unauthorized = json.loads(out.stdout)
        assert ok[0] == 200 and ok[1]["status"] == "Success" and ok[1]["run_result"]["stdout"] == "45\n" and ok[1]["executor_pod_name"] == "pod-7"
        assert numpy[1]["status"] == "Failed" and "ModuleNotFoundError" in numpy[1]["run_result"]["stderr"]
        assert unauthorized[0] == 401
        ps = subprocess.run(["docker", "exec", cid, "id", "-u"], capture_output=True, text=True).stdout.strip()
        assert ps == "65534"
    finally:
        stop_pod(cid)


def test_node_pod_reaches_the_engine(server_image, tmp_path):
    """The node pod with the host's Docker socket runs numpy in a fork-server
    container beside it, answering the sandbox-fusion client on a published
    port. The manifest's kernel image and runtime are the test's."""
    docs = manifests("node-engine.yaml")
    spec, c = pod(docs, "DaemonSet")
    args = list(c["args"])
    args[args.index("--image") + 1] = IMAGE
    args[args.index("--runtime") + 1] = "runc"
    cid = run_pod(docs, "DaemonSet", "-p", "127.0.0.1::8080", args=args)
    try:
        port = subprocess.run(["docker", "port", cid, "8080"], capture_output=True, text=True).stdout.split()[0].rsplit(":", 1)[1]
        url = "http://backyard:%s@127.0.0.1:%s" % (TOKEN, port)
        resp = sf.run_code(sf.RunCodeRequest(code="import numpy as np\nprint(np.arange(10).sum())", language="python"), endpoint=url, max_attempts=1)
        assert resp.status == sf.RunStatus.Success and resp.run_result.stdout == "45\n" and resp.executor_pod_name == "pod-7"
        resp = sf.run_jupyter(sf.RunJupyterRequest(cells=["import numpy as np", "open('in.txt').read() * 2"], files={"in.txt": base64.b64encode(b"ab").decode()}),
                              endpoint=url, max_attempts=1)
        assert resp.status == sf.RunStatus.Success and resp.cells[1].display == [{"text/plain": "'abab'"}]
        assert requests.get("http://127.0.0.1:%s/healthz" % port, timeout=30).status_code == 200
    finally:
        stop_pod(cid)
