#!/usr/bin/python3
"""Writes kernel/auto/probes/expected.json: what CPython prints for each probe cell.

Each cell of kernel/auto/probes/divergence.py runs in a fresh namespace; the
record is its stdout, then "EXC <type>: <message>" when it raised. Run with
the CPython the tests' container image has (Debian 12's /usr/bin/python3).
"""
import contextlib
import io
import json
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernel", "auto", "probes")
src = open(os.path.join(root, "divergence.py")).read()
cells = re.split(r"^# %% (\S+)\n", src, flags=re.M)[1:]
out = {"python": sys.version.split()[0], "probes": {}}
for name, code in zip(cells[::2], cells[1::2]):
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "<cell>", "exec"), {"__name__": "__main__"})
    except SyntaxError as e:
        buf.write(f"EXC SyntaxError\n")
    except BaseException as e:
        buf.write(f"EXC {type(e).__name__}: {e}\n")
    out["probes"][name] = buf.getvalue()
with open(os.path.join(root, "expected.json"), "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"{len(out['probes'])} probes, CPython {out['python']}")
