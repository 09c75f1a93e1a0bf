#!/usr/bin/env python3
"""Records what IPython shows for each cell of the corpus/ipython notebooks.

    python -m venv v && v/bin/pip install ipython
    v/bin/python scripts/record-ipython.py [NOTEBOOK ...]

For each notebook NAME.py it writes NAME.expected.json beside it. The cells
(split at `# %%` lines) run in one IPython InteractiveShell, in a copy of the
notebook's folder; each cell is recorded with its stdout, stderr, the
text/plain of its value (Out[n]) and its MIME bundle, its display outputs
(MIME bundles, in order, after update_display and clear_output) and, for an
exception, its ename and evalue (tracebacks are not recorded), and the
text a magic set as the next input (%load: the kernel's set_next_input
payload), and the payloads %edit sends (a kernel opens no editor). With
%pdb on, an exception starts the debugger after its traceback, as in
IPython's shell. Cells run as ipykernel runs them (transformed once to
learn whether they await, and the notebook's folder first on sys.path).
A cell that did not raise but showed a traceback (%tb: a
kernel's error output, with an ok reply) is recorded with status ok and that
exception's ename and evalue. As in a kernel whose front end has no stdin, input() raises
StdinNotImplementedError; IPython's profile (history, bookmarks) is a fresh
one in a temporary folder. Help's File line for an object a cell defined
is recorded without the temporary folder.
"""

import base64
import builtins
import contextlib
import importlib.util
import io
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from IPython.core.displaypub import DisplayPublisher
from IPython.core.error import StdinNotImplementedError, UsageError
from IPython.core.async_helpers import _asyncio_runner
from IPython.core.interactiveshell import InteractiveShell
from IPython.core.magics.code import CodeMagics, MacroToEdit


class Publisher(DisplayPublisher):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.outputs = []

    def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kwargs):
        did = (transient or {}).get("display_id")
        if update:
            for o in self.outputs:
                if o.get("display_id") == did:
                    o["data"] = data
            return
        o = {"data": data}
        if did:
            o["display_id"] = did
        self.outputs.append(o)

    def clear_output(self, wait=False):
        self.outputs.clear()


class Stream(io.StringIO):
    """sys.stdout or sys.stderr for a whole session, as ipykernel's
    OutStream: one object, so what keeps a reference to it (a logging
    handler, the debugger %pdb made) writes into the cell that runs, not
    into the one that made it."""

    encoding = "utf-8"  # as a kernel's streams: IPython prints µs and ±

    def take(self):
        """What the running cell wrote, and a clean stream for the next.
        IPython's run_cell tees the stream's write into %notebook's history
        and puts it back only when the cell returns; the tee a cell left
        behind by an exception it let through is taken off (a stream made
        per cell never kept one)."""
        vars(self).pop("write", None)
        v = self.getvalue()
        self.seek(0)
        self.truncate()
        return v


# One pair for the process (a notebook's), as a kernel's: what an earlier
# cell left holding them (logging's handlers, the debugger) writes into the
# running cell.
STDOUT, STDERR = Stream(), Stream()


def text(data):
    """A MIME bundle as a kernel sends it: binary data (a PNG's bytes) in
    base64, as Jupyter's protocol carries it; JSON data as its text."""
    return {k: (v if isinstance(v, str) else base64.b64encode(v).decode("ascii") if isinstance(v, bytes) else json.dumps(v))
            for k, v in data.items()}


real_input = builtins.input


def no_stdin(prompt=""):
    """input() in a kernel whose front end sends no input."""
    raise StdinNotImplementedError("raw_input was called, but this frontend does not support input requests.")


def _cell_marker():
    """record-cpython.py's reading of a cell marker line (the cells
    package's rules): (kind, title), or None for another line."""
    spec = importlib.util.spec_from_file_location("record_cpython", Path(__file__).with_name("record-cpython.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod._marker


def split(src):
    """The code cells after the first marker: (title, line, code); markdown
    and raw cells (a jupytext export has many) are skipped, as is a
    preamble of comments before the first marker (a jupytext header)."""
    marker = _cell_marker()
    cells, cur, title, line = [], None, None, 0
    for i, l in enumerate(src.splitlines(True)):
        m = marker(l.rstrip("\r\n"))
        if m:
            if cur is not None:
                cells.append((title, line, "".join(cur)))
            kind, t = m
            cur, title, line = ([], t, i + 1) if kind == "code" else (None, None, 0)
        elif cur is not None:
            cur.append(l)
    if cur is not None:
        cells.append((title, line, "".join(cur)))
    return cells


def stdlib_prefixes():
    """Where this Python's standard library is installed, as help's File
    line may name it: the prefix as it is and with the home folder as ~."""
    prefix = os.path.realpath(sys.base_prefix)
    home = os.path.expanduser("~")
    out = [prefix]
    if prefix.startswith(home + os.sep):
        out.append("~" + prefix[len(home):])
    return out


def record(path):
    src = open(path).read()
    work = tempfile.mkdtemp(prefix="record-ipython-")
    here = os.getcwd()
    os.chdir(work)
    sys.path.insert(0, work)  # as a kernel started in the folder: its modules import
    InteractiveShell.clear_instance()
    for n in ("last_type", "last_value", "last_traceback", "last_exc"):
        if hasattr(sys, n):
            delattr(sys, n)  # a fresh kernel has no last exception for %tb or %debug
    shell = InteractiveShell.instance(colors="NoColor")
    pub = Publisher(shell=shell)
    shell.display_pub = pub
    shell.enable_gui = lambda gui=None: None  # %matplotlib inline needs no event loop
    shell.system = shell.system_piped  # as ipykernel runs !cmd: through pipes, not a terminal
    shell.displayhook.write_output_prompt = lambda: None
    hooked = []  # what the display hook would send as the cell's value (nothing for an object that displays itself)
    shell.displayhook.write_format_data = lambda format_dict, md_dict=None: hooked.append(format_dict)
    shown = []

    def showtraceback(exc_tuple=None, *a, **k):
        # What a kernel sends as an error output (the cell's own exception,
        # or the one %tb shows again); IPython keeps it in sys.last_* for %tb,
        # a UsageError too. The cell's own UsageError is recorded as its
        # error; one %tb shows again is IPython's short message on stderr.
        etype, value, tb = exc_tuple or sys.exc_info()
        try:
            etype, value, _ = shell._get_exc_info(exc_tuple)
        except ValueError:
            print("No traceback available to show.", file=sys.stderr)
            return
        if issubclass(etype, UsageError):
            if tb is None:
                shell.show_usage_error(value)
            return
        shown.append((etype.__name__, str(value)))
        if shell.call_pdb:
            shell.debugger(force=True)  # %pdb on, as IPython's showtraceback

    shell.showtraceback = showtraceback

    def cell_files(out):
        # Help's File line for an object a cell defined names the cell in
        # the temporary copy of the folder: recorded without the folder.
        # A standard-library file is recorded where the test image has it
        # (/usr/lib/python3.X/...), not where this Python is installed.
        out = re.sub(r"(?m)^(File: +)" + re.escape(os.getcwd() + os.sep) + r"(<ipython-input-)", r"\1\2", out)
        for prefix in stdlib_prefixes():
            out = re.sub(r"(?m)^(File: +)" + re.escape(prefix) + r"(?=/lib/python3)", r"\1/usr", out)
        return out

    shell.showsyntaxerror = lambda *a, **k: None
    next_input = []
    shell.set_next_input = lambda text, replace=False: next_input.append({"text": text, "replace": replace})
    payloads = []

    def edit(parameter_s=""):
        # A kernel's %edit (and %ed): no editor, a payload naming the file
        # and line to open, as ipykernel's KernelMagics sends it; recorded
        # with the file relative to the notebook's folder.
        opts, args = shell.magics_manager.registry["CodeMagics"].parse_options(parameter_s, "prn:")
        try:
            filename, lineno, _ = CodeMagics._find_edit_target(shell, args, opts, ["", ""])
        except MacroToEdit:
            print("Macro editing not yet implemented in 2-process model.")
            return
        filename = str(Path(filename).resolve())
        payloads.append({"source": "edit_magic", "filename": os.path.relpath(filename, os.path.realpath(work)), "line_number": lineno})

    shell.register_magic_function(edit, "line", "edit")
    builtins.input = no_stdin
    shell.raw_input = no_stdin
    out = []
    o, e = STDOUT, STDERR
    try:
        for index, (title, line, code) in enumerate(split(src)):
            pub.outputs = []
            next_input.clear()
            payloads.clear()
            shown.clear()
            hooked.clear()
            o.take(), e.take()
            with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
                # As ipykernel runs a cell: transformed first, to learn
                # whether it awaits (then, with asyncio's runner, it runs on
                # the shell's loop), else run (and transformed again) by
                # run_cell.
                cell_code = code.rstrip("\n")
                try:
                    transformed, transform_exc = shell.transform_cell(cell_code), None
                except Exception:
                    transformed, transform_exc = cell_code, sys.exc_info()
                if shell.loop_runner is _asyncio_runner and shell.should_run_async(
                        cell_code, transformed_cell=transformed, preprocessing_exc_tuple=transform_exc):
                    r = shell.loop_runner(shell.run_cell_async(cell_code, store_history=True, transformed_cell=transformed,
                                                               preprocessing_exc_tuple=transform_exc))
                else:
                    r = shell.run_cell(cell_code, store_history=True)
            exc = r.error_in_exec or r.error_before_exec
            value = None
            if r.result is not None and exc is None and hooked:
                value = text(hooked[-1])
            cell = {"index": index, "title": title, "line": line, "status": "error" if exc else "ok",
                    "stdout": cell_files(o.take()), "stderr": e.take(), "value": value,
                    "displays": [dict(x, data=text(x["data"])) for x in pub.outputs],
                    "ename": type(exc).__name__ if exc else None, "evalue": str(exc) if exc else None}
            if shown and not exc:
                # An error output of a cell that did not raise (%tb): the
                # reply is ok.
                cell["ename"], cell["evalue"] = shown[-1]
            if next_input:
                cell["next_input"] = next_input[-1]
            if payloads:
                cell["payloads"] = list(payloads)
            out.append(cell)
    finally:
        builtins.input = real_input
        os.chdir(here)
        sys.path.remove(work)
        shutil.rmtree(work)
    import IPython

    doc = {"notebook": os.path.basename(path), "ipython": IPython.__version__, "python": sys.version.split()[0], "cells": out}
    with open(path[:-3] + ".expected.json", "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    os.environ["IPYTHONDIR"] = tempfile.mkdtemp(prefix="record-ipython-profile-")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "ipython")
    paths = sys.argv[1:] or sorted(os.path.join(root, n) for n in os.listdir(root) if n.endswith(".py"))
    if len(paths) == 1:
        record(paths[0])
        print("recorded", paths[0])
    else:
        # Each notebook in a process of its own, as each has a kernel of its
        # own: nothing one leaves behind (logging's handlers, IPython's
        # output history) reaches the next.
        import subprocess

        for p in paths:
            subprocess.run([sys.executable, os.path.abspath(__file__), p], check=True)
