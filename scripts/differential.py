#!/usr/bin/env python3
"""Runs the corpus notebooks on a backend and compares every cell with CPython.

    scripts/differential.py [--backend monty|auto|container] [--record] [--diffs]
                            [--json FILE] [--bin PATH] [PATH ...]

PATH is a notebook or a folder (default: corpus/stdlib and
corpus/differential). Each notebook runs with `backyard-ls run --json`
(--bin, default bin/backyard-ls; `make build` first) on the chosen backend,
and each cell is compared with CPython's recording beside it
(NAME.expected.json, made by scripts/record-cpython.py; --record makes them
afresh first). Cells are matched by their first body line. A cell is
identical when status, stdout, stderr, value, ename and evalue are all
equal (a missing value, ename or evalue counts as ""), and the whole
exception too: its notes, cause or context and group members, which the
recording holds as "exception" when there are any.

It prints, per notebook and in total, the cells identical to CPython and
the cells the Monty worker served; --diffs prints every differing cell with
its class:
  a   the backend raises, CPython does not
  b1  both run, the output differs
  b2  the backend runs, CPython raises
  b3  both raise, with different errors
  c   Monty rejects the syntax ("does not yet support ...", SyntaxError)
--json writes every cell's comparison (for scripts that count).

Exit status 1 when any cell differs.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_SETS = ["corpus/stdlib", "corpus/differential"]
FIELDS = ("status", "stdout", "stderr", "value", "ename", "evalue", "exception")


def whole(err):
    """A record's error as the recordings hold it, frames aside; None when
    it is the exception alone (no notes, chain or members)."""
    out = {"ename": err.get("ename", ""), "evalue": err.get("evalue", "")}
    if err.get("notes"):
        out["notes"] = err["notes"]
    for k in ("cause", "context"):
        if err.get(k):
            out[k] = whole(err[k]) or {"ename": err[k].get("ename", ""), "evalue": err[k].get("evalue", "")}
    if err.get("exceptions"):
        out["exceptions"] = [whole(x) or {"ename": x.get("ename", ""), "evalue": x.get("evalue", "")} for x in err["exceptions"]]
    if err.get("moreExceptions"):
        out["moreExceptions"] = err["moreExceptions"]
    return out if len(out) > 2 else None


def notebooks(paths):
    out = []
    for p in paths:
        if os.path.isfile(p):
            out.append(p)
            continue
        for d, _, files in os.walk(p):
            out += [os.path.join(d, f) for f in sorted(files)
                    if f.endswith(".py") and os.path.exists(os.path.join(d, f[:-3] + ".expected.json"))]
    return sorted(out)


def observed(rec):
    err = rec.get("error") or {}
    return {"status": rec.get("status", ""), "stdout": rec.get("stdout", ""), "stderr": rec.get("stderr", ""),
            "value": (rec.get("result") or {}).get("text", ""), "ename": err.get("ename", ""),
            "evalue": err.get("evalue", ""), "exception": whole(err) if err else None}


def short(v):
    """A field's value, cut for --diffs."""
    return (v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))[:120]


def expected(cell):
    out = {f: cell.get(f) or "" for f in FIELDS}
    out["exception"] = cell.get("exception")
    return out


def classify(got, want):
    if got["status"] == "error" and want["status"] != "error":
        if got["ename"] == "SyntaxError" or "syntax parser does not yet support" in got["evalue"]:
            return "c"
        return "a"
    if got["status"] != "error" and want["status"] == "error":
        return "b2"
    if got["status"] == "error":
        return "b3"
    return "b1"


def run(bin_path, backend, image, path):
    cmd = [bin_path, "run", "--backend", backend, "--json", path]
    if backend != "monty":
        cmd[2:2] = ["--image", image]
    p = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8", cwd=os.path.dirname(path) or ".")
    recs = []
    for line in p.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            recs.append(json.loads(line))
    if not recs and p.returncode not in (0, 1):
        sys.exit("differential: %s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr[-2000:]))
    return recs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--backend", default="monty", choices=["monty", "auto", "container"])
    ap.add_argument("--bin", default=os.path.join(REPO, "bin", "backyard-ls"))
    ap.add_argument("--image", default=os.environ.get("BACKYARD_TEST_IMAGE", "backyard-python:test"))
    ap.add_argument("--record", action="store_true", help="record CPython's output first (scripts/record-cpython.py)")
    ap.add_argument("--diffs", action="store_true", help="print every cell that differs")
    ap.add_argument("--json", metavar="FILE", help="write every cell's comparison to FILE")
    args = ap.parse_args()
    paths = [os.path.abspath(p) for p in args.paths] or [os.path.join(REPO, s) for s in DEFAULT_SETS]
    if args.record:
        subprocess.run([sys.executable, os.path.join(HERE, "record-cpython.py")] + paths, check=True)
    total = same = on_monty = 0
    rows = []
    for nb in notebooks(paths):
        with open(nb[:-3] + ".expected.json", encoding="utf-8") as f:
            want = json.load(f)["cells"]
        got = {r["range"]["start"]["line"]: r for r in run(os.path.abspath(args.bin), args.backend, args.image, nb)}
        n_same = n_monty = 0
        for cell in want:
            rec = got.get(cell["line"])
            g = observed(rec) if rec else {f: "" for f in FIELDS}
            w = expected(cell)
            diff = [f for f in FIELDS if g[f] != w[f]]
            backend = rec.get("backend", "") if rec else "missing"
            row = {"notebook": os.path.relpath(nb, REPO), "title": cell["title"], "line": cell["line"],
                   "backend": backend, "rule": ((rec or {}).get("routing") or {}).get("rule", ""),
                   "identical": not diff}
            if diff:
                row.update({"class": classify(g, w), "got": {f: g[f] for f in diff}, "cpython": {f: w[f] for f in diff}})
            rows.append(row)
            n_same += not diff
            n_monty += backend == "monty"
            if diff and args.diffs:
                print("  %s:%s [%s, %s] %s" % (row["notebook"], cell["title"] or cell["line"], backend, row["class"],
                                               "; ".join("%s: %r vs CPython %r" % (f, short(g[f]), short(w[f])) for f in diff)))
        total += len(want)
        same += n_same
        on_monty += n_monty
        print("%-45s %3d cells  %3d identical  %3d on Monty" % (os.path.relpath(nb, REPO), len(want), n_same, n_monty))
    if total:
        print("%s: %d cells, %d identical to CPython (%.1f%%), %d served by Monty (%.1f%%)"
              % (args.backend, total, same, 100 * same / total, on_monty, 100 * on_monty / total))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, ensure_ascii=False, indent=1)
    sys.exit(0 if same == total else 1)


if __name__ == "__main__":
    main()
