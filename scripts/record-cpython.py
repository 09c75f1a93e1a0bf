#!/usr/bin/env python3
"""Records what CPython shows for each cell of the measurement corpora.

    scripts/record-cpython.py [--python PYTHON] [--image IMAGE] [--check] [PATH ...]

PATH is a notebook or a folder searched for notebooks (a .py file with a
`# %%` marker line); the default is corpus/stdlib, corpus/differential and
corpus/files. For each notebook NAME.py it writes NAME.expected.json beside
it: the Python version and, for every code cell in document order, its
index among the code cells, title, first body line (0-based), status,
stdout, stderr, value (the text of Out[n]), display (the text of figures
the cell left open), ename and evalue.

A notebook runs the way an IPython kernel started in the notebook's own
folder shows it:
  * one fresh interpreter and one __main__ namespace per notebook, the
    current directory is the notebook's folder and '' leads sys.path (so
    `import helper` finds helper.py beside the notebook);
  * cells split as the cells package splits them (markdown cells skipped),
    each compiled as its own file with top-level await allowed, run one
    after the other; a failing cell does not stop the next;
  * a __future__ feature a cell imports stays on for the cells after it,
    as IPython keeps its compiler's flags;
  * a trailing expression is displayed (Out[n]) as IPython's displayhook
    shows it, unless it is None or the cell ends in ';': the text of
    IPython's pretty printer (IPython/lib/pretty.py, which needs only the
    standard library: --pretty names the file, by default the one of the
    IPython the running python imports; it is mounted into the image),
    with the displayhook's floats (their repr) -- past 79 columns a
    container breaks one item a line, sets are sorted;
  * an exception is recorded as ename (the type's name) and evalue
    (str(e), "<exception str() failed>" when that raises; for the cell's own
    syntax error the message only), with the output printed before it;
    when it has notes, a cause or context, or members (an exception group),
    "exception" holds all of it as the execution record's error does,
    frames aside;
  * bytes written to sys.stdout.buffer are decoded as one stream, and a
    lone surrogate printed is one U+FFFD, as Jupyter shows it;
  * matplotlib draws with Agg; figures left open at the end of a cell are
    closed and their text recorded, as the inline backend shows them.
Files a notebook writes do not persist: each notebook runs in a fresh copy
of the corpus set it belongs to (the folder under corpus/, so `../shared`
from a notebook's folder is there too). The copy has every notebook's
NAME.expected.json, empty, so a listing of a folder shows what a checkout
shows.

The Python: by default the local test image (--image, default
backyard-python:test) under `docker run --network none`, the CPython the
container kernel runs, which also has numpy and matplotlib; --python PATH
runs a local interpreter instead (e.g. a venv's python). The recordings say
which version made them.

--check runs every notebook twice under different hash seeds and reports
the cells whose output differs (so nothing depends on set or hash order)
instead of writing files.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_SETS = ["corpus/stdlib", "corpus/differential", "corpus/files"]
NOTEBOOK_TIMEOUT = 300  # seconds, per notebook
# The environment the container kernel gets (container/spec.go).
KERNEL_ENV = {"LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg"}


# ---- cells (the rules of the cells package, for the markers it knows) ----

def _is_space(c):
    return c in " \t\f\v\r"


def _marker(line):
    """(kind, title) when line is a cell marker, else None."""
    s = line.rstrip(" \t\f\v\r")
    if not s.startswith("#"):
        return None
    rest = s[1:].lstrip(" \t\f\v\r")
    if rest.startswith("%%"):
        after = rest[2:]
        if after and not _is_space(after[0]):
            return None
        t = after.strip(" \t\f\v\r")
        return _percent_kind(t)
    if rest.startswith("In["):
        tail = rest[3:]
        end = tail.find("]")
        count = tail[:end].strip(" ")
        if end >= 0 and tail[end + 1:] in ("", ":") and all("0" <= c <= "9" for c in count):
            return "code", ""
    if rest == "<codecell>":
        return "code", ""
    if rest == "<markdowncell>":
        return "markdown", ""
    return None


def _percent_kind(t):
    """(kind, title) of a "# %%" line's text, read as Jupytext reads it: a
    type tag anywhere in the title (before the metadata) makes it markdown
    or raw; a code cell inactive in notebooks (active="py") is raw."""
    import re

    curly, eq = t.find("{"), t.find("=")
    if curly >= 0 and (eq < 0 or curly < eq):
        title, meta = t[:curly].strip(), t[curly:]
    else:
        words = (t[:eq] if eq >= 0 else t).split(" ")
        if eq >= 0:
            while words and not words[-1]:
                words.pop()
            if words:
                words.pop()  # the key
        while words and (not words[-1].strip() or words[-1].startswith(".")):
            words.pop()
        title = " ".join(words)
        meta = t[len(title):]
    for tag, kind in (("[markdown]", "markdown"), ("[raw]", "raw"), ("[md]", "markdown")):
        if tag in title:
            return kind, title.replace(tag, "").strip(" \t\f\v\r")
    m = re.search(r'(?:^|[\s,{])"?active"?\s*[=:]\s*"([^"]*)"', meta)
    if m and "ipynb" not in re.split(r"[.,]", m.group(1)):
        return "raw", t
    return "code", t


def parse_cells(text):
    """The code cells of a percent-format notebook: [(title, start_line, code)]."""
    if text == "":
        return []
    lines = text.split("\n")
    lines = [l.rstrip("\r") for l in lines[:-1]] + lines[-1:]
    headers = [(i, m) for i, m in ((i, _marker(l)) for i, l in enumerate(lines)) if m]

    def last_non_blank(start, end):
        for i in range(end - 1, start - 1, -1):
            if lines[i].strip(" \t\f\v\r"):
                return i
        return -1

    def cell(title, start, end):
        last = last_non_blank(start, end)
        return (title, start, "\n".join(lines[start:last + 1]) if last >= 0 else "")

    out = []
    first = headers[0][0] if headers else len(lines)
    if not headers or last_non_blank(0, first) >= 0:
        out.append(cell("", 0, first))
    for n, (line, (kind, title)) in enumerate(headers):
        end = headers[n + 1][0] if n + 1 < len(headers) else len(lines)
        if kind == "code":
            out.append(cell(title, line + 1, end))
    return out


def is_notebook(path):
    if not path.endswith(".py"):
        return False
    with open(path, encoding="utf-8") as f:
        return any(_marker(l) for l in f)


# ---- one notebook, in this interpreter ------------------------------------

class _Stream:
    """sys.stdout / sys.stderr of a cell, as a kernel's stream: write
    returns the length written."""

    encoding = "utf-8"
    errors = "strict"
    closed = False

    def __init__(self, name, sink):
        import codecs

        self.name = "<%s>" % name
        self._sink = sink
        self.buffer = self
        # Bytes written through .buffer are one stream, as a terminal reads
        # them: a character split across writes arrives whole.
        self._bytes = codecs.getincrementaldecoder("utf-8")("replace")

    def write(self, s):
        if isinstance(s, (bytes, bytearray, memoryview)):  # through .buffer
            self._sink.append(self._bytes.decode(bytes(s)))
            return len(s)
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not %s" % type(s).__name__)
        self.end()
        # Surrogates as Jupyter shows them: a pair as its character, a lone
        # one as U+FFFD.
        self._sink.append(s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace"))
        return len(s)

    def end(self):
        """Ends the byte stream: an incomplete character is U+FFFD."""
        if self._bytes.getstate()[0]:
            self._sink.append(self._bytes.decode(b"", True))

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        pass

    def isatty(self):
        return False

    def writable(self):
        return True


def _ends_with_semicolon(code, node):
    """Only ';' (and comments) follow the last expression: IPython hides the value."""
    import io

    lines = io.StringIO(code, newline=None).readlines()
    tail = lines[node.end_lineno - 1].encode("utf-8")[node.end_col_offset:].decode("utf-8", "replace")
    tail += "".join(lines[node.end_lineno:])
    i = 0
    while i < len(tail):
        if tail[i] == ";":
            return True
        if tail[i] == "#":
            j = tail.find("\n", i)
            i = len(tail) if j < 0 else j
        i += 1
    return False


def run_notebook(path):
    """Runs the notebook at path (the current directory is its folder) and
    returns its cell records."""
    import ast
    import builtins
    import linecache
    import types

    with open(path, encoding="utf-8") as f:
        cells = parse_cells(f.read())
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = main  # pickle and dataclasses find cell classes
    ns = main.__dict__
    sys.path[0] = ""
    sys.stdin = open(os.devnull)
    import __future__

    flags = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
    future_mask = 0
    for feature in __future__.all_feature_names:
        future_mask |= getattr(__future__, feature).compiler_flag
    loop = None
    records = []
    real_out, real_err = sys.stdout, sys.stderr
    for index, (title, line, code) in enumerate(cells):
        fname = "<cell-%d>" % (index + 1)
        linecache.cache[fname] = (len(code), None, code.splitlines(True), fname)
        out, err = [], []
        rec = {"index": index, "title": title, "line": line, "status": "ok", "stdout": "", "stderr": "",
               "value": None, "display": [], "ename": None, "evalue": None}
        cell_out, cell_err = _Stream("stdout", out), _Stream("stderr", err)
        sys.stdout, sys.stderr = cell_out, cell_err
        try:
            try:
                tree = compile(code, fname, "exec", ast.PyCF_ONLY_AST | flags, dont_inherit=True)
            except SyntaxError as e:
                raise _CellSyntaxError(e)
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr) and not _ends_with_semicolon(code, tree.body[-1]):
                last = tree.body.pop()
            parts = [compile(tree, fname, "exec", flags, dont_inherit=True)]
            flags |= parts[0].co_flags & future_mask  # IPython keeps __future__ features across cells
            if last is not None:
                parts.append(compile(ast.Expression(last.value), fname, "eval", flags, dont_inherit=True))
            value = None
            for part in parts:
                if part.co_flags & 0x80:  # CO_COROUTINE: top-level await
                    import asyncio

                    if loop is None:
                        loop = asyncio.new_event_loop()
                    value = loop.run_until_complete(eval(part, ns))
                else:
                    value = eval(part, ns)
            if last is not None and value is not None:
                rec["value"] = _shown(value)
        except _CellSyntaxError as w:
            rec.update(status="error", ename=type(w.error).__name__, evalue=w.error.msg)
        except BaseException as e:  # noqa: B036 - a cell's KeyboardInterrupt/SystemExit is its result
            rec.update(status="error", ename=type(e).__name__,
                       evalue="" if isinstance(e, KeyboardInterrupt) else _safe(e, "exception"))
            whole = _exception(e)
            if set(whole) - {"ename", "evalue"}:
                rec["exception"] = whole
        finally:
            cell_out.end()
            cell_err.end()
            sys.stdout, sys.stderr = real_out, real_err
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is not None and plt.get_fignums():
            rec["display"] = [repr(plt.figure(n)) for n in plt.get_fignums()]
            plt.close("all")
        rec["stdout"], rec["stderr"] = "".join(out), "".join(err)
        records.append(rec)
    return records


_PRETTY = []


def _shown(value):
    """Out[n]'s text: IPython's pretty printer as its displayhook sets it up
    (79 columns, floats by their repr)."""
    if not _PRETTY:
        import importlib.util

        spec = importlib.util.spec_from_file_location("_ipython_pretty", os.environ["BACKYARD_IPYTHON_PRETTY"])
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        printers = dict(mod._type_pprinters)
        printers[float] = lambda obj, p, cycle: p.text(repr(obj))
        _PRETTY.extend([mod, printers])
    import io

    mod, printers = _PRETTY
    s = io.StringIO()
    p = mod.RepresentationPrinter(s, type_pprinters=dict(printers))
    p.pretty(value)
    p.flush()
    return s.getvalue()


def _safe(value, what, func=str):
    """str() (or func) of value, as CPython's traceback prints one that raises."""
    try:
        return func(value)
    except BaseException:  # noqa: B036
        return "<%s %s() failed>" % (what, func.__name__)


def _exception(e, seen=None):
    """The whole exception as a traceback prints it, frames aside: ename,
    evalue, notes, the cause or context printed before it and an exception
    group's members (the execution record's error, without tracebacks)."""
    seen = seen if seen is not None else set()
    seen.add(id(e))
    out = {"ename": type(e).__name__, "evalue": "" if isinstance(e, KeyboardInterrupt) else _safe(e, "exception")}
    notes = getattr(e, "__notes__", None)
    if notes is not None:
        out["notes"] = [_safe(n, "note") for n in notes] if isinstance(notes, (list, tuple)) else [_safe(notes, "__notes__", repr)]
    if e.__cause__ is not None and id(e.__cause__) not in seen:
        out["cause"] = _exception(e.__cause__, seen)
    elif e.__cause__ is None and e.__context__ is not None and not e.__suppress_context__ and id(e.__context__) not in seen:
        out["context"] = _exception(e.__context__, seen)
    import builtins

    group = getattr(builtins, "BaseExceptionGroup", None)
    if group is not None and isinstance(e, group):
        out["exceptions"] = [_exception(m, seen) for m in e.exceptions[:15] if id(m) not in seen]
        if len(e.exceptions) > 15:
            out["moreExceptions"] = len(e.exceptions) - 15
    return out


class _CellSyntaxError(Exception):
    def __init__(self, error):
        self.error = error


# ---- many notebooks, in this interpreter's machine ------------------------

def worker(root, notebooks, hash_seed=None):
    """Runs each notebook (paths relative to root) in a fresh interpreter, in
    its folder within a fresh copy of root, and prints one JSON line each."""
    version = "%d.%d.%d" % sys.version_info[:3]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    if not env.get("BACKYARD_IPYTHON_PRETTY"):
        sys.exit("record-cpython: no IPython pretty printer (BACKYARD_IPYTHON_PRETTY)")
    env.update(KERNEL_ENV)
    if hash_seed is not None:
        env["PYTHONHASHSEED"] = str(hash_seed)
    for rel in notebooks:
        with tempfile.TemporaryDirectory(prefix="record-") as tmp:
            copy = os.path.join(tmp, "set")
            shutil.copytree(root, copy, ignore=shutil.ignore_patterns("*.expected.json", "__pycache__"))
            for other in notebooks:
                # The recordings sit beside the notebooks in the repository,
                # so a listing of a notebook's folder shows them: the copy
                # has them too, empty, whether recorded yet or not.
                open(os.path.join(copy, other[:-3] + ".expected.json"), "w").close()
            home = os.path.join(tmp, "home")
            os.mkdir(home)
            env["HOME"] = env["MPLCONFIGDIR"] = home
            result = os.path.join(tmp, "result.json")
            nb = os.path.join(copy, rel)
            p = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--run-one", nb, result],
                cwd=os.path.dirname(nb), env=env, stdin=subprocess.DEVNULL,
                capture_output=True, text=True, timeout=NOTEBOOK_TIMEOUT,
            )
            rec = {"notebook": rel, "python": version}
            if p.returncode != 0 or not os.path.exists(result):
                rec["failure"] = "exit status %d: %s" % (p.returncode, (p.stderr or p.stdout)[-2000:])
            else:
                with open(result, encoding="utf-8") as f:
                    rec["cells"] = json.load(f)
                if p.stdout or p.stderr:  # written to fd 1/2 past sys.stdout (C code, subprocesses)
                    rec["stray"] = p.stdout + p.stderr
        print(json.dumps(rec, ensure_ascii=False), flush=True)


# ---- the host side -------------------------------------------------------

def find_notebooks(paths):
    """{set root: [notebook paths relative to it]}; the set of a notebook is
    the folder right under corpus/ that holds it (else its own folder)."""
    sets = {}
    for p in paths:
        p = os.path.abspath(p)
        files = [p] if os.path.isfile(p) else sorted(
            os.path.join(d, f) for d, _, fs in os.walk(p) for f in fs)
        for f in files:
            if not is_notebook(f):
                continue
            rel = os.path.relpath(f, os.path.join(REPO, "corpus"))
            if rel.startswith(".."):
                root = os.path.dirname(f)
            else:
                root = os.path.join(REPO, "corpus", rel.split(os.sep)[0])
            sets.setdefault(root, []).append(os.path.relpath(f, root))
    return sets


def record_set(args, root, notebooks, hash_seed=None):
    """Runs a set's notebooks with the chosen Python; yields their records."""
    me = os.path.abspath(__file__)
    tail = ["--worker", "--root"]
    if hash_seed is not None:
        tail = ["--hash-seed", str(hash_seed)] + tail
    env = dict(os.environ)
    if args.python:
        env["BACKYARD_IPYTHON_PRETTY"] = args.pretty
        cmd = [args.python, me] + tail + [root, "--"] + notebooks
    else:
        cmd = ["docker", "run", "--rm", "-i", "--network", "none", "--user", "65534:65534",
               "-v", "%s:/corpus:ro" % root, "-v", "%s:/record-cpython.py:ro" % me,
               "-v", "%s:/ipython-pretty.py:ro" % args.pretty, "-e", "BACKYARD_IPYTHON_PRETTY=/ipython-pretty.py",
               "-e", "HOME=/tmp", args.image,
               "python3", "/record-cpython.py"] + tail + ["/corpus", "--"] + notebooks
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, encoding="utf-8", env=env)
    for line in p.stdout:
        yield json.loads(line)
    if p.wait() != 0:
        sys.exit("record-cpython: %s exited with status %d" % (cmd[0], p.returncode))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="notebooks or folders (default: the three corpus sets)")
    ap.add_argument("--python", help="run this local Python instead of the image's")
    ap.add_argument("--image", default=os.environ.get("BACKYARD_TEST_IMAGE", "backyard-python:test"))
    ap.add_argument("--check", action="store_true", help="run twice under different hash seeds; write nothing")
    ap.add_argument("--pretty", help="IPython's IPython/lib/pretty.py (default: the one of the IPython this python imports)")
    ap.add_argument("--run-one", nargs=2, metavar=("NOTEBOOK", "RESULT"), help=argparse.SUPPRESS)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--root", help=argparse.SUPPRESS)
    ap.add_argument("--hash-seed", type=int, help=argparse.SUPPRESS)
    args, rest = ap.parse_known_args()
    if args.run_one:
        records = run_notebook(args.run_one[0])
        with open(args.run_one[1], "w", encoding="utf-8") as f:
            json.dump(records, f, ensure_ascii=False)
        os._exit(0)  # no atexit or thread teardown output after the last cell
    if args.worker:
        worker(args.root, [n for n in rest if n != "--"] + [n for n in args.paths if n != "--"], args.hash_seed)
        return
    if not args.pretty:
        import importlib.util

        spec = importlib.util.find_spec("IPython")
        if spec is None or not spec.submodule_search_locations:
            sys.exit("record-cpython: Out[n] is IPython's pretty text: install IPython here or pass --pretty IPython/lib/pretty.py")
        args.pretty = os.path.join(list(spec.submodule_search_locations)[0], "lib", "pretty.py")
    args.pretty = os.path.abspath(args.pretty)
    sets = find_notebooks(args.paths or [os.path.join(REPO, s) for s in DEFAULT_SETS])
    if not sets:
        sys.exit("record-cpython: no notebooks found")
    bad = 0
    for root, notebooks in sorted(sets.items()):
        if args.check:
            a = {r["notebook"]: r for r in record_set(args, root, notebooks, hash_seed=1)}
            b = {r["notebook"]: r for r in record_set(args, root, notebooks, hash_seed=2)}
            for nb in notebooks:
                ca, cb = a[nb].get("cells", []), b[nb].get("cells", [])
                for x, y in zip(ca, cb):
                    if x != y:
                        bad += 1
                        print("%s cell %d (%s) depends on the hash seed" % (nb, x["index"], x["title"]))
                if a[nb].get("failure") or len(ca) != len(cb):
                    bad += 1
                    print("%s: %s" % (nb, a[nb].get("failure") or "cell counts differ"))
            continue
        for rec in record_set(args, root, notebooks):
            path = os.path.join(root, rec["notebook"])
            if "failure" in rec:
                bad += 1
                print("%s: FAILED %s" % (path, rec["failure"]), file=sys.stderr)
                continue
            if rec.get("stray"):
                print("%s: output past sys.stdout: %r" % (path, rec["stray"][:200]), file=sys.stderr)
            out = {"notebook": os.path.basename(path), "python": rec["python"], "cells": rec["cells"]}
            with open(path[:-3] + ".expected.json", "w", encoding="utf-8") as f:
                json.dump(out, f, ensure_ascii=False, indent=1)
                f.write("\n")
            errors = sum(c["status"] == "error" for c in rec["cells"])
            print("%s: %d cells (%d raise), CPython %s" % (os.path.relpath(path, REPO), len(rec["cells"]), errors, rec["python"]))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
