# IPython's shell as cells see it (stdlib only): get_ipython() answers the
# calls that the host's transformation of IPython syntax makes (magics,
# shell escapes, help), display() and an IPython.display module publish
# MIME bundles. Where the image has IPython, its display objects are used
# and its display functions publish through this driver.
#
# The driver defines _st, _bundle and _mime_data; this part is run first and
# reads them only when a cell calls it.

import builtins as _ipy_builtins
import os as _ipy_os
import sys as _ipy_sys
import time as _ipy_time
import types  # the help and the module surface build on it, in a kernel and in a batch

_IPY_HIDDEN = {"In", "Out", "get_ipython", "exit", "quit", "display"}


class UsageError(Exception):
    """IPython's error for a misused or unknown magic."""


class _CarriedError(Exception):
    """An exception raised on another backend, as its record (which %tb
    shows): it has no traceback here."""

    def __init__(self, record):
        Exception.__init__(self, record.get("evalue", ""))
        self.record = record


def _carried_place(exc):
    """Where an exception raised on another backend was raised, from its
    record's last frame: (file, line, function), the file a cell's as this
    shell names it (its lines are there when the cell ran here too, or came
    with the document's history); None when the record has no frame."""
    import re

    frames = exc.record.get("traceback") or ()
    if not frames:
        return None
    f = frames[-1]
    name, text = f.get("name") or "<module>", f.get("text") or ""
    m = re.match(r"cell (\d+):(\d+): ", text)
    if m:
        return "<cell-%s>" % m.group(1), int(m.group(2)), name
    if f.get("file"):
        return f["file"], f.get("file_line") or 0, name
    return _defined_place(name, text)


def _defined_place(name, text):
    """Where the line text of function name is, in the newest cell that
    defines one so named with that line: Monty names no place for a frame
    in a function an earlier cell defined."""
    import ast
    import linecache
    import re

    cells = []
    for file in list(linecache.cache):
        m = re.match(r"<cell-(\d+)>$", file)
        if m:
            cells.append((int(m.group(1)), file))
    for _, file in sorted(cells, reverse=True):
        lines = linecache.getlines(file)
        try:
            tree = ast.parse("".join(lines))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                for i in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                    if lines[i - 1].strip() == text:
                        return file, i, name
    return None


def _ipy_carried(record):
    """The shell's last exception for the record of one raised elsewhere:
    a UsageError as itself (%tb shows its message)."""
    if record.get("ename") == "UsageError" and not record.get("traceback"):
        return UsageError(record.get("evalue", ""))
    return _CarriedError(record)


def _ends_in_semicolon(source):
    """IPython silences %time's value when the code's last token is ';'."""
    import io
    import tokenize

    last = None
    try:
        for t in tokenize.generate_tokens(io.StringIO(source).readline):
            if t.type not in (tokenize.COMMENT, tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT):
                last = t
    except (tokenize.TokenError, SyntaxError):
        return False
    return last is not None and last.string == ";"


def _format_time(timespan, precision=3):
    """A duration as IPython's %time and %timeit print it."""
    if timespan >= 60.0:
        parts = [("d", 60 * 60 * 24), ("h", 60 * 60), ("min", 60), ("s", 1)]
        time = []
        leftover = timespan
        for suffix, length in parts:
            value = int(leftover / length)
            if value > 0:
                leftover = leftover % length
                time.append("%s%s" % (str(value), suffix))
            if leftover < 1:
                break
        return " ".join(time)
    units = ["s", "ms", "\u03bcs", "ns"]  # IPython 9 prints the Greek mu
    enc = getattr(_ipy_sys.stdout, "encoding", None) or "utf-8"
    try:
        "\u03bc".encode(enc)
    except Exception:
        units[2] = "us"
    scaling = [1, 1e3, 1e6, 1e9]
    if timespan > 0.0:
        import math

        order = min(-int(math.floor(math.log10(timespan)) // 3), 3)
    else:
        order = 3
    return "%.*g %s" % (precision, timespan * scaling[order], units[order])


class SList(list):
    """A command's output lines, as IPython's getoutput returns them."""

    @property
    def s(self):
        return " ".join(self)

    @property
    def n(self):
        return "\n".join(self)

    @property
    def l(self):  # noqa: E743
        return list(self)

    p = property(lambda self: [_ipy_os.path.expanduser(x) for x in self])


class RichOutput:
    """A display %%capture kept."""

    def __init__(self, data=None, metadata=None, transient=None, update=False):
        self.data, self.metadata, self.transient, self.update = data or {}, metadata or {}, transient or {}, update

    def display(self):
        _publish(self.data, self.metadata, self.transient.get("display_id"), self.update)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.data, self.metadata


class CapturedIO:
    """What %%capture kept: stdout, stderr and the displays."""

    def __init__(self, stdout, stderr, outputs=None):
        self._stdout, self._stderr, self._outputs = stdout, stderr, outputs or []

    def __str__(self):
        return self.stdout

    @property
    def stdout(self):
        return self._stdout.getvalue() if self._stdout else ""

    @property
    def stderr(self):
        return self._stderr.getvalue() if self._stderr else ""

    @property
    def outputs(self):
        return [RichOutput(o["data"], o.get("metadata"), {"display_id": o["display_id"]} if "display_id" in o else None) for o in self._outputs]

    def show(self):
        _ipy_sys.stdout.write(self.stdout)
        _ipy_sys.stderr.write(self.stderr)
        _ipy_sys.stdout.flush()
        _ipy_sys.stderr.flush()
        for o in self.outputs:
            o.display()

    __call__ = show


class _Capture:
    """The cell's sys.stdout/sys.stderr while %%capture runs."""

    def __init__(self):
        self.parts = []

    def write(self, s):
        self.parts.append(s)
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False

    def getvalue(self):
        return "".join(self.parts)


_ipy_state = {"capture": None, "precision": None, "pprint": True, "dir_stack": [], "raw": [""], "figure_formats": {"png"}, "figure_kwargs": {},
             "bookmarks": {}, "log": None, "last_exc": None, "shown_exc": None, "i00": "",
             "unders": ["", "", ""], "given": ["", "", ""], "bg": [], "bg_loop": None, "extensions": set(),
             "xmode": "Context", "plain_only": False, "doctest": None,
             "pdb": False, "autocall": 0, "autocall_save": None, "autoawait": True, "loop_runner": "asyncio", "colors": "nocolor",
             "code_wraps": {}, "outputs": {}, "tee": None}

# IPython's default shell aliases on Linux, as a kernel with colours off
# defines them (container.LineMagics reads this block: each is a line magic).
_IPY_ALIASES = (
    ("mkdir", "mkdir"),
    ("rmdir", "rmdir"),
    ("mv", "mv"),
    ("rm", "rm"),
    ("cp", "cp"),
    ("cat", "cat"),
    ("ls", "ls -F"),
    ("ll", "ls -F -o"),
    ("lf", "ls -F -o %l | grep ^-"),
    ("lk", "ls -F -o %l | grep ^l"),
    ("ldir", "ls -F -o %l | grep /$"),
    ("lx", "ls -F -o %l | grep ^-..x"),
)

# The class of each magic IPython 9's shell registers, in the order it
# registers them (autoreload's after %load_ext autoreload), which %lsmagic
# --json shows for those this shell has (container.MagicClasses reads this
# block). Its magic aliases and shell aliases are "Other", as is a magic
# registered since.
_IPY_MAGIC_CLASSES = (
    ("line", "AutoMagics", "autocall automagic"),
    ("line", "BasicMagics", "alias_magic colors doctest_mode gui lsmagic magic notebook page pprint precision quickref xmode"),
    ("line", "CodeMagics", "edit load loadpy pastebin save"),
    ("line", "ConfigMagics", "config"),
    ("line", "ExecutionMagics", "code_wrap debug macro pdb prun run tb time timeit"),
    ("line", "ExtensionMagics", "load_ext reload_ext unload_ext"),
    ("line", "HistoryMagics", "history recall rerun"),
    ("line", "LoggingMagics", "logoff logon logstart logstate logstop"),
    ("line", "NamespaceMagics", "pdef pdoc pfile pinfo pinfo2 psearch psource reset reset_selective who who_ls whos xdel"),
    ("line", "OSMagics", "alias bookmark cd dhist dirs env popd pushd pwd pycat rehashx sc set_env sx system unalias"),
    ("line", "PackagingMagics", "conda mamba micromamba pip uv"),
    ("line", "PylabMagics", "matplotlib pylab"),
    ("line", "ScriptMagics", "killbgscripts"),
    ("line", "AsyncMagics", "autoawait"),
    ("line", "Other", "ed hist rep mkdir rmdir mv rm cp cat ls ll lf lk ldir lx"),
    ("line", "AutoreloadMagics", "autoreload aimport"),
    ("cell", "DisplayMagics", "html javascript js latex markdown svg"),
    ("cell", "ExecutionMagics", "capture code_wrap debug prun time timeit"),
    ("cell", "OSMagics", "! sx system writefile"),
    ("cell", "ScriptMagics", "script sh bash perl ruby python python2 python3 pypy"),
    ("cell", "Other", "SVG HTML file"),
)

def _magic_parser(prog):
    """An argparse parser for a magic's line, as IPython's magic_arguments:
    its errors are UsageErrors."""
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message):
            raise UsageError(message)

    return Parser(prog=prog, add_help=False)


def _page(text):
    """IPython's pager without a terminal: the text's lines, printed."""
    print("\n".join(text.splitlines()))


def _arg_split(line):
    """A magic's line in words as IPython's arg_split splits it: quotes
    kept, no comments."""
    import shlex

    lex = shlex.shlex(line, posix=False)
    lex.whitespace_split = True
    lex.commenters = ""
    return list(lex)


def _ipy_bg_loop():
    """The event loop %%script --bg runs programs on, in a thread of its
    own (as IPython's ScriptMagics)."""
    loop = _ipy_state["bg_loop"]
    if loop is None:
        import asyncio
        import threading

        loop = _ipy_state["bg_loop"] = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, daemon=True).start()
    return loop


class _AsyncIOProxy:
    """An object of the --bg loop: its coroutine methods run there and give
    a future the cell can await, its other attributes are its own."""

    def __init__(self, obj, loop):
        self._obj, self._loop = obj, loop

    def __repr__(self):
        return "<_AsyncIOProxy(%r)>" % (self._obj,)

    def __getattr__(self, key):
        import asyncio
        import inspect

        attr = getattr(self._obj, key)
        if not inspect.iscoroutinefunction(attr):
            return attr

        def wrapped(*args, **kwargs):
            return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(attr(*args, **kwargs), self._loop))

        return wrapped

    def __dir__(self):
        return dir(self._obj)


_NO_STDIN = "raw_input was called, but this frontend does not support input requests."


class StdinNotImplementedError(Exception):
    """IPython's error for input() in a kernel whose front end sends none."""


class Macro:
    """%macro's object: code that runs when a cell is its name alone."""

    def __init__(self, code):
        import re

        lines = [ln for ln in code.splitlines() if not re.match(r"^[ \t\f]*#.*?coding[:=]", ln)]
        self.value = "\n".join(lines) + "\n"

    def __str__(self):
        return self.value

    def __repr__(self):
        return "IPython.macro.Macro(%s)" % repr(self.value)

    def __add__(self, other):
        if isinstance(other, Macro):
            return Macro(self.value + other.value)
        if isinstance(other, str):
            return Macro(self.value + other)
        raise TypeError


class _Alias:
    """A shell alias: a line magic that runs its command with the line."""

    def __init__(self, shell, name, cmd):
        self.shell, self.name, self.cmd = shell, name, cmd
        self.__doc__ = "Alias for `!%s`" % cmd
        if name in ("cd", "popd", "pushd", "dhist", "alias", "unalias"):
            raise _AliasError("The name %s can't be aliased because it is a keyword or builtin." % name)
        other = shell.magics["line"].get(name) or getattr(shell, "_line_" + name, None)
        if other is not None and not isinstance(other, _Alias):
            raise _AliasError("The name %s can't be aliased because it is another magic command." % name)
        self.nargs = cmd.count("%s") - cmd.count("%%s")
        if self.nargs > 0 and "%l" in cmd:
            raise _AliasError("The %s and %l specifiers are mutually exclusive in alias definitions.")

    def __repr__(self):
        return "<alias %s for %r>" % (self.name, self.cmd)

    def __call__(self, rest=""):
        cmd = self.cmd
        if "%l" in cmd:
            cmd, rest = cmd.replace("%l", rest), ""
        if self.nargs == 0:
            if cmd.find("%%s") >= 1:
                cmd = cmd.replace("%%s", "%s")
            cmd = "%s %s" % (cmd, rest)
        else:
            args = rest.split(None, self.nargs)
            if len(args) < self.nargs:
                raise UsageError("Alias <%s> requires %s arguments, %s given." % (self.name, self.nargs, len(args)))
            cmd = "%s %s" % (cmd % tuple(args[: self.nargs]), " ".join(args[self.nargs:]))
        self.shell.system(cmd)


class _AutoreloadMagics:
    """IPython's autoreload extension, built into this shell: %load_ext
    autoreload registers these line magics (the AutoreloadMagics row of
    _IPY_MAGIC_CLASSES), which the shell has not before."""

    def __init__(self, shell):
        self.shell = shell

    def autoreload(self, line):
        """Reloads modules before a cell runs: %autoreload 0, 1, 2 or 3."""
        return None  # accepted: each cell already sees the modules as they are on disk after %autoreload's reload

    def aimport(self, line):
        """Names the modules %autoreload 1 reloads."""
        for name in line.replace(",", " ").split():
            if not name.startswith("-"):
                self.shell.user_ns[name.split(".")[0]] = __import__(name)
        return None


class _AliasError(Exception):
    pass


def _publish(data, metadata, display_id, update):
    """Sends one display to the host (or to a running %%capture)."""
    cap = _ipy_state["capture"]
    msg = {"data": data, "metadata": metadata or {}}
    if display_id is not None:
        msg["display_id"] = str(display_id)
    if cap is not None:
        cap.append(msg)
        return
    if not _st.in_cell or _st.child:
        return
    if not update and not (metadata or {}).get("payload"):
        _ipy_history_output({"output_type": "display_data", "data": dict(data), "metadata": dict(metadata or {})})
    # Capped as a value is: data over the output limit is left out.
    data = dict(data)
    cap = _st.out.cap
    for k in list(data):
        if k != "text/plain" and len(data[k]) > cap:
            size = len(data.pop(k))
            data["text/plain"] = data.get("text/plain", "") + "\n[backyard: its %s data (%d bytes) is over the %d-byte output limit and was left out]" % (k, size, cap)
    if "text/plain" in data:
        data["text/plain"] = _cut(data["text/plain"], cap)[0]
    frame = {"t": "display", "id": _st.exec_id, "mime": data, "meta": metadata or {}}
    if display_id is not None:
        frame["display_id"] = str(display_id)
    if update:
        frame["update"] = True
    if _st.after_value:
        frame["after"] = True
    for st in _st.streams:
        try:
            st.flush()
        except Exception:
            pass
    _st.out.drain_raw()
    _st.out.flush(frame)


def _display_bundle(obj, raw):
    if raw:
        data = dict(obj) if isinstance(obj, dict) else {"text/plain": str(obj)}
        return {k: _mime_data(v) for k, v in data.items()}, {}
    if _is_figure(obj):
        if _ipy_state["plain_only"]:
            return {"text/plain": repr(obj)}, {}
        data, meta = _figure_data(obj)
        return dict(data, **{"text/plain": repr(obj)}), meta
    meta = {}
    rb = getattr(obj, "_repr_mimebundle_", None)
    if callable(rb):
        try:
            b = rb(include=None, exclude=None)
            if isinstance(b, tuple) and len(b) == 2:
                meta = dict(b[1] or {})
        except Exception:
            pass
    mime = _bundle(obj)
    md = getattr(obj, "metadata", None)
    if isinstance(md, dict) and md and not meta:
        meta = dict(md)
    return mime, meta


def display(*objs, include=None, exclude=None, metadata=None, transient=None, display_id=None, raw=False, clear=False, **kwargs):
    """IPython's display(): each object's MIME bundle becomes a display
    output of the cell. display_id=True gives a new id and returns a
    DisplayHandle."""
    if clear:
        clear_output(wait=True)
    if display_id is True:
        import uuid

        display_id = uuid.uuid4().hex
    if transient and "display_id" in transient:
        display_id = transient["display_id"]
    update = kwargs.get("update", False)
    for obj in objs:
        if not raw and _ipy_displays_itself(obj):
            continue
        mime, meta = _display_bundle(obj, raw)
        if include:
            mime = {k: v for k, v in mime.items() if k in include}
        if exclude:
            mime = {k: v for k, v in mime.items() if k not in exclude}
        if not mime:
            continue  # as IPython: nothing to show, no output
        if metadata:
            meta.update(metadata)
        _publish(mime, meta, display_id, update)
    if display_id is not None and not update:
        return DisplayHandle(display_id)
    return None


def update_display(obj, *, display_id, **kwargs):
    """Replaces the display with this id."""
    kwargs["update"] = True
    display(obj, display_id=display_id, **kwargs)


def clear_output(wait=False):
    """Clears the cell's display outputs so far."""
    if _ipy_state["capture"] is not None:
        del _ipy_state["capture"][:]
        return
    if _st.in_cell and not _st.child:
        _st.out.drain_raw()
        _st.out.flush({"t": "display", "id": _st.exec_id, "clear": True})


class DisplayHandle:
    def __init__(self, display_id=None):
        if display_id is None:
            import uuid

            display_id = uuid.uuid4().hex
        self.display_id = display_id

    def __repr__(self):
        return "<%s display_id=%s>" % (self.__class__.__name__, self.display_id)

    def display(self, obj, **kwargs):
        display(obj, display_id=self.display_id, **kwargs)

    def update(self, obj, **kwargs):
        update_display(obj, display_id=self.display_id, **kwargs)


class DisplayObject:
    """The base of IPython's display objects: data (or a file or URL's
    content) shown under one MIME type."""

    _mime = "text/plain"

    def __init__(self, data=None, url=None, filename=None, metadata=None):
        if data is not None and isinstance(data, str) and data.startswith("http") and url is None:
            url, data = data, None
        if data is not None and isinstance(data, str) and filename is None and url is None and _ipy_os.path.isfile(data) and len(data) < 4096 and "\n" not in data:
            filename, data = data, None
        self.data, self.url, self.filename, self.metadata = data, url, filename, metadata or {}
        if filename is not None and data is None:
            mode = "rb" if self._binary else "r"
            with open(filename, mode) as f:
                self.data = f.read()
        elif url is not None and data is None and self._fetches():
            # As IPython's reload(): the URL's content becomes the data.
            self.data = _ipy_fetch(url)
            if not self._binary:
                self.data = self.data.decode("utf-8", "replace")

    _binary = False

    def _fetches(self):
        """Whether a URL's content becomes the data (Image and Audio: when
        embedded)."""
        return getattr(self, "embed", True)

    def __repr__(self):
        return "<%s.%s object>" % (self.__class__.__module__, self.__class__.__name__)

    def _repr_mimebundle_(self, include=None, exclude=None):
        if self.data is None:
            return {}
        return ({self._mime: self.data}, self.metadata) if self.metadata else {self._mime: self.data}


class TextDisplayObject(DisplayObject):
    pass


class HTML(TextDisplayObject):
    _mime = "text/html"

    def __html__(self):
        return self.data


class Markdown(TextDisplayObject):
    _mime = "text/markdown"


class Latex(TextDisplayObject):
    _mime = "text/latex"


class SVG(DisplayObject):
    _mime = "image/svg+xml"

    def __init__(self, data=None, url=None, filename=None, metadata=None):
        super().__init__(data, url, filename, metadata)
        if isinstance(self.data, bytes):
            self.data = self.data.decode("utf-8", "replace")
        if isinstance(self.data, str):
            from xml.dom import minidom

            found = minidom.parseString(self.data).getElementsByTagName("svg")
            if found:
                self.data = found[0].toxml()


class Pretty(TextDisplayObject):
    _mime = "text/plain"

    def __repr__(self):
        return str(self.data)


class Javascript(TextDisplayObject):
    _mime = "application/javascript"


class JSON(DisplayObject):
    _mime = "application/json"

    def __init__(self, data=None, url=None, filename=None, expanded=False, metadata=None, root="root", **kwargs):
        if isinstance(data, str) and filename is None and url is None and not _ipy_os.path.isfile(data):
            import json as _json

            data = _json.loads(data)
        super().__init__(data, url, filename, metadata)
        if isinstance(self.data, str):
            import json as _json

            self.data = _json.loads(self.data)
        self.metadata = dict(self.metadata, expanded=expanded, root=root)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {self._mime: self.data}, self.metadata


class Image(DisplayObject):
    _binary = True

    def __init__(self, data=None, url=None, filename=None, format=None, embed=None, width=None, height=None, metadata=None, **kwargs):
        if format is None:
            name = (filename or url or (data if isinstance(data, str) else "") or "").lower()
            format = "jpeg" if name.endswith((".jpg", ".jpeg")) else "gif" if name.endswith(".gif") else "png"
        self.format = "jpeg" if format == "jpg" else format
        self._mime = "image/" + self.format
        self.embed = embed if embed is not None else url is None
        self.width, self.height = width, height
        self.unconfined, self.alt = kwargs.get("unconfined", False), kwargs.get("alt")
        super().__init__(data, url, filename, metadata)

    def _repr_mimebundle_(self, include=None, exclude=None):
        if not self.embed:
            import html

            attrs = "".join([' width="%d"' % self.width if self.width else "", ' height="%d"' % self.height if self.height else "",
                             ' class="unconfined"' if self.unconfined else "", ' alt="%s"' % html.escape(self.alt) if self.alt else ""])
            src = self.url if self.url is not None else self.filename
            return {"text/html": '<img src="%s"%s/>' % (html.escape(src or ""), attrs)}
        if self.data is None:
            return {}
        meta = dict(self.metadata)
        if self.width:
            meta["width"] = self.width
        if self.height:
            meta["height"] = self.height
        return {self._mime: self.data}, meta


class Code(TextDisplayObject):
    def __init__(self, data=None, url=None, filename=None, language=None):
        self.language = language
        super().__init__(data, url, filename)

    def __repr__(self):
        return str(self.data)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": str(self.data), "text/markdown": "```%s\n%s\n```" % (self.language or "", self.data)}


class _Events:
    """IPython's shell.events: callbacks run before and after each cell
    (pre_execute, post_execute; matplotlib registers one on import)."""

    def __init__(self):
        self.callbacks = {"pre_execute": [], "pre_run_cell": [], "post_execute": [], "post_run_cell": [], "shell_initialized": []}

    def register(self, event, function):
        if event not in self.callbacks:
            raise KeyError("Unknown event type: %s" % event)
        if not callable(function):
            raise TypeError("Need a callable, got %r" % function)
        if function not in self.callbacks[event]:
            self.callbacks[event].append(function)

    def unregister(self, event, function):
        try:
            self.callbacks[event].remove(function)
        except ValueError:
            raise ValueError("Function {!r} is not registered as a {} callback".format(function, event)) from None

    def trigger(self, event, *args, **kwargs):
        for f in self.callbacks[event][:]:
            try:
                f(*args, **kwargs)
            except (Exception, KeyboardInterrupt):
                # As IPython: a failing callback is reported and the others run.
                print("Error in callback {} (for {}):".format(f, event), file=_ipy_sys.stderr)
                import traceback

                traceback.print_exc()


class _IPyShell:
    """What get_ipython() returns."""

    def __init__(self, ns):
        self.user_ns = ns
        self.magics_manager = self
        self.magics = {"line": {}, "cell": {}}
        self.events = _Events()
        for name, cmd in _IPY_ALIASES:
            self.magics["line"][name] = _Alias(self, name, cmd)

    def enable_gui(self, gui=None):
        pass  # the inline backend needs no event loop

    # -- the calls the transformation makes -----------------------------

    def run_line_magic(self, magic_name, line, _stack_depth=1):
        f = self.magics["line"].get(magic_name) or getattr(self, "_line_" + magic_name, None)
        if f is None:
            extra = ""
            if self.magics["cell"].get(magic_name) or getattr(self, "_cell_" + magic_name, None):
                extra = " (But cell magic `%%%%%s` exists, did you mean that instead?)" % magic_name
            raise UsageError("Line magic function `%%%s` not found%s." % (magic_name, extra))
        return f(line)

    def run_cell_magic(self, magic_name, line, cell):
        f = self.magics["cell"].get(magic_name) or getattr(self, "_cell_" + magic_name, None)
        if f is None:
            extra = ""
            if self.magics["line"].get(magic_name) or getattr(self, "_line_" + magic_name, None):
                extra = " (But line magic `%%%s` exists, did you mean that instead?)" % magic_name
            raise UsageError("Cell magic `%%%%%s` not found%s." % (magic_name, extra))
        return f(line, cell)

    def find_line_magic(self, name):
        return self.magics["line"].get(name) or getattr(self, "_line_" + name, None)

    def find_cell_magic(self, name):
        return self.magics["cell"].get(name) or getattr(self, "_cell_" + name, None)

    def register_magic_function(self, func, magic_kind="line", magic_name=None):
        name = magic_name or func.__name__
        for kind in ("line", "cell") if magic_kind == "line_cell" else (magic_kind,):
            self.magics[kind][name] = func

    def system(self, cmd):
        """!cmd: runs in a shell on a terminal of 80 columns, as IPython's
        kernel runs it (pexpect): ls lists in columns, and the command's
        errors go to the cell's stdout too. Its lines end in \n as the
        rest of the cell's output; its stdin stays empty."""
        import fcntl
        import pty
        import signal
        import struct
        import subprocess
        import termios

        self._flush()
        shell = "/bin/bash" if _ipy_os.path.exists("/bin/bash") else None
        master, slave = pty.openpty()
        try:
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
            mode = termios.tcgetattr(slave)
            mode[1] &= ~termios.ONLCR
            termios.tcsetattr(slave, termios.TCSANOW, mode)
            p = subprocess.Popen(self.var_expand(cmd), shell=True, executable=shell, stdout=slave, stderr=slave, start_new_session=True)
        except BaseException:
            _ipy_os.close(master)
            raise
        finally:
            _ipy_os.close(slave)
        # The terminal is read until the shell ends: gVisor's never says
        # that every writer closed it (EIO), so a thread waits for the
        # shell and wakes the loop, which then reads what is left.
        import select
        import threading

        woken, wake = _ipy_os.pipe()

        def waiter():
            try:
                p.wait()
                _ipy_os.write(wake, b"x")
            except OSError:  # an interrupt closed the loop's end first
                pass
            finally:
                _ipy_os.close(wake)

        threading.Thread(target=waiter, daemon=True).start()
        try:
            ended = False
            while True:
                if not ended:
                    ended = woken in select.select([master, woken], [], [])[0]
                    if ended:
                        _ipy_os.set_blocking(master, False)
                try:
                    data = _ipy_os.read(master, 65536)
                except BlockingIOError:  # the shell ended and all it wrote was read
                    break
                except OSError:  # EIO: the command and its children closed the terminal
                    break
                if not data:
                    break
                while data:
                    data = data[_ipy_os.write(1, data):]
            rc = p.wait()
        except BaseException:  # an interrupt: the command and what it started stop
            try:
                _ipy_os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()
            raise
        finally:
            _ipy_os.close(master)
            _ipy_os.close(woken)
        self.user_ns["_exit_code"] = rc
        return None

    def getoutput(self, cmd, split=True):
        """!!cmd and var = !cmd: the command's output lines."""
        import subprocess

        self._flush()
        shell = "/bin/bash" if _ipy_os.path.exists("/bin/bash") else None
        p = subprocess.run(self.var_expand(cmd), shell=True, executable=shell, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.user_ns["_exit_code"] = p.returncode
        text = p.stdout.decode("utf-8", "replace")
        return SList(text.splitlines()) if split else text

    def show_usage(self):
        print("IPython -- An enhanced Interactive Python: magics (%lsmagic), shell escapes (!cmd), help (object?).")

    def ev(self, expr):
        return eval(expr, self.user_ns)

    def ex(self, cmd):
        exec(cmd, self.user_ns)

    def push(self, variables):
        self.user_ns.update(variables)

    def var_expand(self, cmd):
        """IPython's expansion of {expr} and $name in a shell command."""
        import re
        import string

        ns = self.user_ns

        def name(m):
            if m.group(0).startswith("$$"):
                return m.group(0)[1:]
            return str(ns[m.group(1)]) if m.group(1) in ns else m.group(0)

        cmd = re.sub(r"\$\$?([A-Za-z_][A-Za-z0-9_]*)", name, cmd)

        class _F(string.Formatter):
            def get_field(self, field_name, args, kwargs):
                return eval(field_name, ns), None

        try:
            return _F().vformat(cmd, (), {})
        except Exception:
            return cmd

    def _flush(self):
        for st in (_ipy_sys.stdout, _ipy_sys.stderr):
            try:
                st.flush()
            except Exception:
                pass

    # -- line magics ------------------------------------------------------

    def _timed(self, source):
        """Runs source in the namespace; the value of a trailing expression
        is returned (as IPython's %time does)."""
        import ast

        tree = ast.parse(source)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        body = compile(tree, "<timed exec>", "exec")
        expr = compile(last, "<timed eval>", "eval") if last is not None else None
        t0 = _ipy_os.times()
        w0 = _ipy_time.time()
        value = None
        try:
            exec(body, self.user_ns)
            if expr is not None:
                value = eval(expr, self.user_ns)
        finally:
            w1 = _ipy_time.time()
            t1 = _ipy_os.times()
            user, sys_ = t1[0] - t0[0], t1[1] - t0[1]
            print("CPU times: user %s, sys: %s, total: %s" % (_format_time(user), _format_time(sys_), _format_time(user + sys_)))
            print("Wall time: %s" % _format_time(w1 - w0))
        return value

    def _run_nested(self, code):
        """Runs code in the namespace as a cell: the value of its last
        expression (none after a ';')."""
        import ast

        tree = ast.parse(code)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, "<cell>", "exec"), self.user_ns)
        if last is None:
            return None
        value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), self.user_ns)
        return None if _ends_in_semicolon(code) else value

    def _line_time(self, line):
        """Runs a statement and prints the CPU and wall time it took."""
        value = self._timed(line)
        return None if _ends_in_semicolon(line) else value

    def _cell_time(self, line, cell):
        """Runs the cell and prints the CPU and wall time it took."""
        value = self._timed(cell)
        return None if _ends_in_semicolon(cell) else value

    def _timeit(self, line, cell):
        import getopt
        import shlex
        import timeit

        args = shlex.split(line, posix=True) if line else []
        number = repeat = None
        quiet = ret = False
        precision = 3
        spec = "n:r:tcp:qov:"  # IPython 9's %timeit options (-t, -c, -v accepted)
        try:
            opts, stmt_parts = getopt.getopt(args, spec)
        except getopt.GetoptError as e:
            raise UsageError('%s (allowed: "%s")' % (e.msg, spec)) from None
        for o, v in opts:
            if o in ("-n", "-r", "-p"):
                n = int(v)
                if o == "-n":
                    number = n
                elif o == "-r":
                    repeat = n
                else:
                    precision = n
            elif o == "-q":
                quiet = True
            elif o == "-o":
                ret = True
        rest = _rest_as_written(line, args[: len(args) - len(stmt_parts)])
        if cell is None:
            stmt, setup = rest or "pass", "pass"
        else:
            stmt, setup = cell, rest or "pass"
        t = timeit.Timer(stmt, setup, globals=self.user_ns)
        if repeat is None:
            repeat = 7
        if number is None:
            number = 1
            for index in range(0, 10):
                number = 10 ** index
                if t.timeit(number) >= 0.2:
                    break
        runs = t.repeat(repeat, number)
        timings = [dt / number for dt in runs]
        res = TimeitResult(number, repeat, min(timings), max(timings), runs, precision)
        if not quiet:
            worst, best = max(timings), min(timings)
            if worst > 4 * best and best > 0 and worst > 1e-6:
                print("The slowest run took %0.2f times longer than the fastest. This could mean that an intermediate result is being cached." % (worst / best))
            print(res)
        return res if ret else None

    def _line_timeit(self, line):
        """Times a statement over many runs: %timeit [-n LOOPS] [-r REPEATS]
        [-o] [-q] STATEMENT."""
        if not line.strip():
            return None
        return self._timeit(line, None)

    def _cell_timeit(self, line, cell):
        """Times the cell over many runs; the magic's line is setup code, not
        timed."""
        return self._timeit(line, cell)

    def _line_pwd(self, line):
        """Returns the working folder."""
        return _ipy_os.getcwd()

    def _dh(self):
        dh = self.user_ns.get("_dh")
        if not isinstance(dh, list):
            dh = self.user_ns["_dh"] = _ipy_dir_history()
        return dh

    def _line_cd(self, line):
        """Changes the working folder: %cd DIR, %cd - (the last one), %cd -N
        (from %dhist), %cd -b BOOKMARK; -q quiet."""
        dh = self._dh()
        args = line.split()
        quiet = "-q" in args
        target = " ".join(a for a in args if a not in ("-q", "-b")).strip()
        marks = _ipy_state["bookmarks"]
        if "-b" in args or target in marks and not _ipy_os.path.isdir(_ipy_os.path.expanduser(target)):
            if target not in marks:
                raise UsageError("Bookmark '%s' not found.  Use '%%bookmark -l' to see your bookmarks." % target)
            print("(bookmark:%s) -> %s" % (target, marks[target]))
            target = marks[target]
        if not target:
            target = _ipy_os.path.expanduser("~")
        elif target == "-":
            target = str(dh[-2]) if len(dh) > 1 else _ipy_os.getcwd()
        elif target.startswith("-") and target[1:].isdigit():
            try:
                target = str(dh[int(target[1:])])
            except IndexError:
                print("The requested directory does not exist in history.")
                return None
        target = _ipy_os.path.expanduser(target.strip("'\""))
        old = _ipy_os.getcwd()
        try:
            _ipy_os.chdir(target)
        except OSError as e:
            print(e)
        else:
            if _ipy_os.getcwd() != old:
                import pathlib

                dh.append(pathlib.Path.cwd())
        if not quiet and dh:
            print(dh[-1])
        return None

    def _line_pushd(self, line):
        """Changes the working folder and remembers the one left on a stack
        (%popd returns)."""
        cwd = _ipy_os.getcwd()
        home = _ipy_os.path.expanduser("~")
        if home and home != "/":
            cwd = cwd.replace(home, "~")
        if line.strip():
            self._line_cd(line)
        _ipy_state["dir_stack"].insert(0, cwd)
        return self._line_dirs("")

    def _line_popd(self, line):
        """Returns to the folder on top of the stack %pushd keeps."""
        if not _ipy_state["dir_stack"]:
            raise UsageError("%popd on empty stack")
        top = _ipy_state["dir_stack"].pop(0)
        self._line_cd(top)
        print("popd ->", top)

    def _line_dirs(self, line):
        """Returns the stack of folders %pushd keeps."""
        return _ipy_state["dir_stack"]

    def _line_dhist(self, line):
        """Prints the folders %cd visited: %dhist [N | N M]."""
        dh = self._dh()
        args = [int(a) for a in line.split()]
        lo, hi = 0, len(dh)
        if len(args) == 1:
            lo = max(len(dh) - args[0], 0)
        elif len(args) == 2:
            lo, hi = args
        elif len(args) > 2:
            print("%dhist accepts 0, 1 or 2 arguments: see %dhist?")
            return None
        print("Directory history (kept in _dh)")
        for i in range(lo, min(hi, len(dh))):
            print("%d: %s" % (i, dh[i]))
        return None

    def _line_env(self, line):
        """IPython's %env: list (likely secrets hidden), get or set."""
        line = self.var_expand(line)
        if line.strip():
            if len(line.split("=" if "=" in line else " ")) == 1:
                key = line.strip()
                if key in _ipy_os.environ:
                    return _ipy_os.environ[key]
                raise UsageError("Environment does not have key: {0}".format(key))
            return self._set_env(line)
        env = dict(_ipy_os.environ)
        for key in list(env):
            if any(s in key.lower() for s in ("key", "token", "secret")):
                env[key] = "<hidden>"
        return env

    def _line_set_env(self, line):
        """Sets an environment variable: %set_env NAME VALUE."""
        return self._set_env(self.var_expand(line))

    def _set_env(self, line):
        import re

        bits = line.split("=" if "=" in line else " ", 1)
        if not line.strip() or len(bits) < 2:
            raise UsageError("usage is 'set_env var=val'")
        var, val = bits[0].strip(), bits[1].strip()
        if re.match(r".*\s.*", var):
            raise UsageError("refusing to set env var with whitespace: '{0}'".format(val))
        _ipy_os.environ[var] = val
        print("env: %s=%s" % (var, val))
        return None

    def _user_names(self):
        return sorted(k for k in self.user_ns if not k.startswith("_") and k not in _IPY_HIDDEN and k not in ("__builtins__",))

    def _who_ls(self, line):
        """The user's names, those of the given type names only."""
        names = self._user_names()
        types = set(line.split())
        if types:
            names = [n for n in names if type(self.user_ns[n]).__name__ in types]
        return names

    def _line_who(self, line):
        """Lists the names of the interactive namespace's variables,
        optionally of the given types only."""
        names = self._who_ls(line)
        if not names:
            print("No variables match your requested type." if line.strip() else "Interactive namespace is empty.")
            return None
        count = 0
        for n in names:
            print(n + "\t", end=" ")
            count += 1
            if count > 8:
                count = 0
                print()
        print()
        return None

    def _line_who_ls(self, line):
        """Returns the sorted names of the interactive namespace's variables,
        optionally of the given types only."""
        return self._who_ls(line)

    def _line_whos(self, line):
        """Prints a table of the interactive namespace's variables: name, type
        and data."""
        names = self._who_ls(line)
        if not names:
            print("No variables match your requested type." if line.strip() else "Interactive namespace is empty.")
            return None
        colsep = 3
        types = [type(self.user_ns[n]).__name__ for n in names]
        varwidth = max(len("Variable"), max(len(n) for n in names)) + colsep
        typewidth = max(len("Type"), max(len(t) for t in types)) + colsep
        print("Variable".ljust(varwidth) + "Type".ljust(typewidth) + " Data/Info\n" + "-" * (varwidth + typewidth + len("Data/Info") + 1))
        np = _ipy_sys.modules.get("numpy")
        for n, t in zip(names, types):
            v = self.user_ns[n]
            print("{0:<{vw}}{1:<{tw}}".format(n, t, vw=varwidth, tw=typewidth), end=" ")
            if t in ("dict", "list", "tuple"):
                print("n=" + str(len(v)))
            elif np is not None and t == "ndarray" and isinstance(v, np.ndarray):
                shape = str(v.shape).replace(",", "").replace(" ", "x")[1:-1]
                nbytes = v.size * v.itemsize
                text = "%s: %s elems, type `%s`, %s bytes" % (shape, v.size, v.dtype, nbytes)
                if nbytes < 100000:
                    print(text)
                else:
                    print(text, "({} kb)".format(nbytes / 1024) if nbytes < 1048576 else "({} Mb)".format(nbytes / 1048576))
            elif t in ("DataFrame", "Series"):
                print("Shape: {}".format(v.shape))
            else:
                try:
                    s = str(v)
                except Exception:
                    s = "<object with id %d (str() failed)>" % id(v)
                s = s.replace("\n", "\\n")
                print(s if len(s) < 50 else s[:25] + "<...>" + s[-25:])
        return None

    def _line_precision(self, line):
        """Sets the digits floats print with: %precision N, a format string,
        or alone back to repr."""
        s = line.strip()
        if not s:
            _ipy_state["precision"] = None
            return "%r"
        if "%" in s:
            fmt = s
            fmt % 3.14159
        else:
            try:
                n = int(s)
            except ValueError:
                raise ValueError("Precision must be int or format string, not %r" % s)
            fmt = "%%.%if" % n
        _ipy_state["precision"] = fmt
        return fmt

    def _line_reset(self, line):
        """Removes the names the user defined (and the history's with it): -f
        without asking, --aggressive, in, out, dhist, array."""
        words = line.split()
        opts = {w for w in words if w.startswith("-")}
        targets = [w.lower() for w in words if not w.startswith("-")]
        if "-f" not in opts:
            ans = input("Once deleted, variables cannot be recovered. Proceed (y/[n])? ")
            if ans.strip().lower() not in ("y", "yes"):
                print("Nothing done.")
                return None
        ns = self.user_ns
        if "-s" in opts:
            for k in self._user_names():
                del ns[k]
        elif not targets:
            keep = {"__builtins__", "__name__", "__doc__", "__package__", "__loader__", "__spec__", "In", "_ih", "_dh"} | _IPY_HIDDEN
            for k in list(ns):
                if k not in keep:
                    del ns[k]
            out = ns.get("Out")
            if isinstance(out, dict):
                out.clear()
        for target in targets:
            if target == "out":
                out = ns.get("Out")
                print("Flushing output cache (%d entries)" % (len(out) if isinstance(out, dict) else 0))
                if isinstance(out, dict):
                    for n in list(out):
                        ns.pop("_%d" % n, None)
                    out.clear()
                ns.update({"_": "", "__": "", "___": ""})
            elif target == "in":
                print("Flushing input history")
                inputs = ns.get("In")
                if isinstance(inputs, list):
                    for n in range(1, len(inputs)):
                        ns.pop("_i%d" % n, None)
                    inputs[:] = [""] * len(inputs)
                _ipy_state["raw"][:] = [""] * len(_ipy_state["raw"])
                _ipy_state["i00"] = ""
                ns.update({"_i": "", "_ii": "", "_iii": ""})
            elif target == "array":
                np = _ipy_sys.modules.get("numpy")
                if np is None:
                    print("reset array only works if Numpy is available.")
                    continue
                for k, v in list(ns.items()):
                    if isinstance(v, np.ndarray):
                        del ns[k]
            elif target == "dhist":
                print("Flushing directory history")
                del self._dh()[:]
            else:
                print("Don't know how to reset ", end=" ")
                print(target + ", please run `%reset?` for details")
        return None

    def _line_reset_selective(self, line):
        """Deletes the user's names a regular expression finds (no question
        asked: a kernel whose front end sends no input asks none)."""
        import re

        opts, args = self._options(line, "f")
        regex = " ".join(args)
        if not regex:
            print("No regex pattern specified. Nothing done.")
            return None
        m = re.compile(regex)
        for name in self._who_ls(""):
            if m.search(name):
                del self.user_ns[name]
        return None

    def _line_xdel(self, line):
        """Deletes a variable and every reference the shell keeps to its
        object."""
        words = line.split()
        by_name = "-n" in words
        names = [w for w in words if not w.startswith("-")]
        name = names[0] if names else ""
        ns = self.user_ns
        try:
            if name in ("__builtin__", "__builtins__"):
                raise ValueError("Refusing to delete %s" % name)
            if by_name:
                ns.pop(name, None)
            else:
                if name not in ns:
                    raise NameError("name '%s' is not defined" % name)
                obj = ns[name]
                for k in [k for k, v in ns.items() if v is obj]:
                    del ns[k]
                out = ns.get("Out")
                if isinstance(out, dict):
                    for k in [k for k, v in out.items() if v is obj]:
                        del out[k]
        except (NameError, ValueError) as e:
            print(type(e).__name__ + ": " + str(e))
        return None

    def _line_xmode(self, line):
        """Sets how tracebacks show: Plain, Context, Verbose, Minimal, Docs or
        Doctest; alone, cycles through them."""
        mode = (line.strip() or "Context").capitalize()
        if mode not in ("Context", "Plain", "Verbose", "Minimal", "Docs", "Doctest"):
            # As IPython: a warning, and the mode stays.
            import warnings

            warnings.warn("Error changing user exception modes.\nUnrecognized mode in FormattedTB: <%s>\nValid modes: %s" % (
                line.strip(), ["Plain", "Context", "Verbose", "Minimal", "Docs", "Doctest"]), UserWarning, stacklevel=2)
            return None
        _ipy_state["xmode"] = mode
        print("Exception reporting mode: %s" % mode)

    def _line_doctest_mode(self, line):
        """Toggles what IPython's doctest mode changes in a kernel: values
        as repr() gives them, text/plain alone, the Plain exception mode;
        off again, the settings from before."""
        saved = _ipy_state["doctest"]
        if saved is None:
            _ipy_state["doctest"] = {"pprint": _ipy_state["pprint"], "xmode": _ipy_state["xmode"]}
            _ipy_state["pprint"], _ipy_state["plain_only"] = False, True
            self._line_xmode("Plain")
        else:
            _ipy_state["doctest"] = None
            _ipy_state["pprint"], _ipy_state["plain_only"] = saved["pprint"], False
            self._line_xmode(saved["xmode"])
        print("Doctest mode is:", "OFF" if saved else "ON")

    def _line_matplotlib(self, line):
        """Sets matplotlib's backend: %matplotlib inline shows figures as the
        cell's outputs."""
        gui = line.strip() or "inline"
        if gui in ("inline", "agg"):
            _ipy_os.environ["MPLBACKEND"] = "agg"
            mpl = _ipy_sys.modules.get("matplotlib")
            if mpl is not None:
                try:
                    mpl.use("agg")
                except Exception:
                    pass
            return None
        print("Warning: Cannot change to a different GUI toolkit: %s. Using inline instead." % gui)
        return None

    def _line_config(self, line):
        """%config: the inline backend's figure formats and print_figure
        arguments are kept; other settings are accepted."""
        if not line.strip():
            print("Available objects for config:\n    InlineBackend")
            return None
        name, eq, value = line.partition("=")
        name = name.strip()
        if not eq or name not in ("InlineBackend.figure_format", "InlineBackend.figure_formats", "InlineBackend.print_figure_kwargs"):
            return None
        import ast

        value = ast.literal_eval(value.strip())
        if name == "InlineBackend.print_figure_kwargs":
            _ipy_state["figure_kwargs"] = dict(value)
            return None
        formats = {value} if isinstance(value, str) else set(value)
        supported = {"png", "png2x", "retina", "jpg", "jpeg", "svg", "pdf"}
        bad = formats - supported
        if bad:
            # As IPython: the setting is refused with a logged error, the cell goes on.
            print("ERROR:root:supported formats are: {} not {}".format(",".join(repr(f) for f in sorted(supported)), ",".join(repr(f) for f in sorted(bad))),
                  file=_ipy_sys.stderr)
            return None
        _ipy_state["figure_formats"] = formats
        return None

    def _line_load_ext(self, line):
        """Loads an IPython extension by module name."""
        name = line.strip()
        if not name:
            raise UsageError("Missing module name.")
        loaded = _ipy_state["extensions"]
        if name in loaded:
            print("The %s extension is already loaded. To reload it, use:" % name)
            print("  %reload_ext", name)
            return None
        if name == "autoreload":  # IPython's own, built into this shell
            ext = _AutoreloadMagics(self)
            self.magics["line"].update(autoreload=ext.autoreload, aimport=ext.aimport)
            loaded.add(name)
            return None
        import importlib

        mod = importlib.import_module(name)
        load = getattr(mod, "load_ipython_extension", None)
        if load is None:
            print("The %s module is not an IPython extension." % name)
            return None
        load(self)
        loaded.add(name)
        return None

    def _line_unload_ext(self, line):
        """Unloads an IPython extension by module name."""
        name = line.strip()
        if not name:
            raise UsageError("Missing module name.")
        if name not in _ipy_state["extensions"]:
            print("The %s extension is not loaded." % name)
            return None
        unload = getattr(_ipy_sys.modules.get(name), "unload_ipython_extension", None)
        if unload is None:
            print("The %s extension doesn't define how to unload it." % name)
            return None
        unload(self)
        _ipy_state["extensions"].discard(name)
        return None

    def _line_reload_ext(self, line):
        """Reloads an IPython extension by module name."""
        name = line.strip()
        if not name:
            raise UsageError("Missing module name.")
        if name == "autoreload" and name in _ipy_state["extensions"]:
            return None  # built in: nothing to reload
        mod = _ipy_sys.modules.get(name)
        if name not in _ipy_state["extensions"] or mod is None:
            return self._line_load_ext(name)
        import importlib

        if getattr(mod, "unload_ipython_extension", None) is not None:
            mod.unload_ipython_extension(self)
        load = getattr(importlib.reload(mod), "load_ipython_extension", None)
        if load is not None:
            load(self)
        return None

    def _line_pip(self, line):
        """Runs pip in the kernel's Python: %pip install PACKAGE."""
        args = line.split()
        if args[:1] == ["install"]:
            # At its line, as in IPython, but the host installs the packages
            # under its install policy (never pip in the sandbox); what it
            # did or why it did not is its text.
            self._flush()
            text = _host_function("__backyard_pip_install__")(line)
            if text:
                _ipy_sys.stderr.write(text)
                _ipy_sys.stderr.flush()
            import importlib

            importlib.invalidate_caches()
        elif args[:1] in (["list"], ["show"], ["freeze"], ["check"], []):
            import subprocess

            self._flush()
            subprocess.call([_ipy_sys.executable, "-m", "pip", "--disable-pip-version-check"] + args)
        else:
            raise UsageError("%%pip %s: this kernel installs packages with %%pip install only (the host's installer, under backyard.autoInstall)" % args[0])
        print("Note: you may need to restart the kernel to use updated packages.")
        return None

    def _line_uv(self, line):
        """Runs uv pip for the kernel's Python: %uv pip install PACKAGE."""
        args = line.split()
        if args[:1] != ["pip"]:
            raise UsageError("%uv: only %uv pip is supported")
        return self._line_pip(" ".join(args[1:]))

    def _conda_like(self, line):
        """%conda, %mamba, %micromamba: IPython runs them in a conda
        environment only; this kernel installs with %pip install."""
        if not _ipy_os.path.exists(_ipy_os.path.join(_ipy_sys.prefix, "conda-meta", "history")):
            raise ValueError("The python kernel does not appear to be a conda environment.  Please use ``%pip install`` instead.")
        raise UsageError("this kernel installs packages with %pip install only (the host's installer, under backyard.autoInstall)")

    def _line_conda(self, line):
        """Runs conda for the kernel's environment."""
        return self._conda_like(line)

    def _line_mamba(self, line):
        """Runs mamba for the kernel's environment."""
        return self._conda_like(line)

    def _line_micromamba(self, line):
        """Runs micromamba for the kernel's environment."""
        return self._conda_like(line)

    # -- automagic ---------------------------------------------------------------

    automagic = True  # IPython's default: a line magic runs without its %

    def _auto_status(self):
        if self.automagic:
            return "Automagic is ON, % prefix IS NOT needed for line magics."
        return "Automagic is OFF, % prefix IS needed for line magics."

    def _line_automagic(self, line):
        """Whether line magics work without their %: %automagic on, off, or
        alone to toggle."""
        arg = line.lower()
        if arg in ("on", "1", "true"):
            self.automagic = True
        elif arg in ("off", "0", "false"):
            self.automagic = False
        else:
            self.automagic = not self.automagic
        print("\n" + self._auto_status())

    def _magic_names(self, kind):
        return {n[len(kind) + 2:] for n in dir(self) if n.startswith("_%s_" % kind)} | set(self.magics[kind])

    def _line_lsmagic(self, line):
        """The magics as a str, the cell's value in IPython 9 (as
        container.LsMagic, which Monty returns); with -j or --json (or a
        prefix argparse takes for it), a dict of each kind's magics and
        their classes (container.MagicClasses, which Monty returns)."""
        words = line.split()  # as container.LsMagicJSON
        bad = [w for w in words if w != "-j" and not (len(w) > 2 and "--json".startswith(w))]
        if bad:
            raise UsageError("unrecognized arguments: " + " ".join(bad))
        if words:
            out = {}
            for kind in ("line", "cell"):
                have, d = self._magic_names(kind), {}
                for k, cls, names in _IPY_MAGIC_CLASSES:
                    d.update((n, cls) for n in names.split() if k == kind and n in have)
                for n in self.magics[kind]:
                    d.setdefault(n, "Other")
                out[kind] = d
            return out
        lines_, cells = sorted(self._magic_names("line")), sorted(self._magic_names("cell"))
        return "\n".join(["Available line magics:", "%" + "  %".join(lines_), "", "Available cell magics:", "%%" + "  %%".join(cells), "",
                           self._auto_status()])

    def _line_pinfo(self, line, detail=False):
        """obj? and obj??: IPython's fields of the object, each as
        "Head:" padded to the longest head, its body after a space (or on
        the next lines when it has several). As IPython's %pinfo, a name
        with * is a search (%psearch), and `pinfo name` or a ? before or
        after the name asks for detail."""
        import re

        if not detail:
            again, before, name, after = re.match(r"(pinfo )?(\?*)(.*?)(\??$)", line).groups()
            if "*" in name:
                return self._line_psearch(name)
            detail = bool(again or before or after)
        else:
            name = line
        name = name.strip()
        obj, space = None, "IPython internal"
        if not name.startswith("%"):
            try:
                obj, space = self._find(name)
            except NameError:
                pass
        if space == "IPython internal":
            # A magic: %%name a cell magic's, %name or a name no namespace
            # has a line magic's (else a cell magic's).
            if name.startswith("%%"):
                obj = self.find_cell_magic(name[2:])
            else:
                bare = name.lstrip("%")
                obj = self.find_line_magic(bare) or self.find_cell_magic(bare)
            if obj is None:
                print("Object `%s` not found." % name)
                return None
            if isinstance(obj, _Alias):
                print("Repr: %r" % obj)
                return None
        print(_ipy_help_text(obj, name, space, space == "IPython internal", detail))
        return None

    def _find(self, name):
        """The object a help line names and the namespace it is in
        ("Interactive", "Python builtin"), as IPython finds it: a name or
        a dotted chain of attributes and integer subscripts (x[0].y), never
        an expression to evaluate; a property named last is the property
        itself (its getter is not run). NameError when there is none."""
        import re

        if not re.fullmatch(r"[^\W\d]\w*(\.[^\W\d]\w*|\[-?\d+\])*", name):
            raise NameError(name)
        head, *parts = re.findall(r"\w+|-?\d+", name)
        for space, ns in (("Interactive", self.user_ns), ("Python builtin", vars(_ipy_builtins))):
            if head not in ns:
                continue
            obj = ns[head]
            try:
                for i, a in enumerate(parts):
                    if a.lstrip("-").isdigit():
                        obj = obj[int(a)]
                        continue
                    if i == len(parts) - 1 and not isinstance(obj, type):
                        attr = getattr(type(obj), a, None)
                        if isinstance(attr, property):
                            obj = attr
                            continue
                    obj = getattr(obj, a)
            except Exception:
                continue
            return obj, space
        raise NameError(name)

    def _lookup(self, name):
        """The object a help line names (see _find)."""
        return self._find(name)[0]

    def _inspected(self, line):
        """The object a %pdef/%pdoc/%psource/%pfile line names, or None
        after IPython's message."""
        name = line.strip()
        try:
            return name, self._lookup(name), True
        except Exception:
            print("Object `%s` not found." % name)
            return name, None, False

    def _line_pdef(self, line):
        """Prints an object's call signature."""
        import inspect

        name, obj, found = self._inspected(line)
        if not found:
            return None
        if not callable(obj):
            print("Object is not callable.")
            return None
        text = _ipy_signature(obj, name)
        if text is None:
            print("No definition header found for %s" % name)
            return None
        print("Class constructor information:\n" if inspect.isclass(obj) else "", text, end=" ")
        return None

    def _line_pdoc(self, line):
        """Prints an object's docstring (and its constructor's, for a
        class)."""
        import inspect
        import re

        name, obj, found = self._inspected(line)
        if not found:
            return None

        def indent(text):
            out = re.sub(r"(?m)^", "    ", text)
            return out[:-4] if out.endswith("\n    ") else out

        lines = []
        ds = inspect.getdoc(obj)
        if ds:
            lines += ["Class docstring:", indent(ds)]
        if inspect.isclass(obj) and hasattr(obj, "__init__"):
            init_ds = inspect.getdoc(obj.__init__)
            if init_ds is not None:
                lines += ["Init docstring:", indent(init_ds)]
        elif hasattr(obj, "__call__"):
            call_ds = inspect.getdoc(obj.__call__)
            if call_ds:
                lines += ["Call docstring:", indent(call_ds)]
        print("\n".join(lines) if lines else "No documentation found for %s" % name)
        return None

    def _line_psource(self, line):
        """Prints the source of an object."""
        import inspect

        name, obj, found = self._inspected(line)
        if not found:
            return None
        try:
            print(inspect.getsource(obj).rstrip("\n"))
        except Exception:
            print("No source found for %s" % name)
        return None

    def _line_pfile(self, line):
        """Prints the file an object is defined in."""
        import inspect

        name, obj, found = self._inspected(line)
        if not found:
            return None
        try:
            path = inspect.getabsfile(obj)
        except Exception:
            print("No file found for %s" % name)
            return None
        if path.endswith((".so", ".dll", ".pyd")):
            print("File %r is binary, not printing." % path)
        elif not _ipy_os.path.isfile(path):
            print("File %r does not exist, not printing." % path)
        else:
            with open(path, encoding="utf-8", errors="replace") as f:
                print(f.read())
        return None

    def _line_pinfo2(self, line):
        """Detailed help on an object, as obj??."""
        return self._line_pinfo(line, detail=True)

    def _line_psearch(self, line):
        """Lists the names matching a wildcard pattern (* any text, ? one
        character), sorted, in the namespaces searched: IPython's
        %psearch [-a] [-i|-c] [-e NS] [-s NS] [-l] PATTERN [TYPE]. A dotted
        pattern (os.*path*) matches attributes; TYPE is a name of the types
        module's *Type without Type (function, module), -l lists them."""
        import getopt
        import shlex

        words = shlex.split(line) if line.split() else []
        try:
            opts, args = getopt.getopt(words, "cias:e:l")
        except getopt.GetoptError as e:
            raise UsageError('%s (allowed: "cias:e:l")' % e.msg) from None
        given = [o[1:] for o, _ in opts]
        if "l" in given:
            print("\n".join(sorted(_ipy_type_names())))
            return None
        ignore_case = "i" in given  # -c, or neither: case-sensitive
        search = ["user_local", "user_global", "builtin"] + [v for o, v in opts if o == "-s"]
        search = [n for n in search if n not in [v for o, v in opts if o == "-e"]]
        table = {"user_global": self.user_ns, "user_local": self.user_ns, "builtin": vars(_ipy_builtins)}
        pattern = " ".join(args)
        try:
            cmds = pattern.split()
            if len(cmds) not in (1, 2):
                raise ValueError("invalid argument string for psearch: <%s>" % pattern)
            name_pattern, type_name = cmds if len(cmds) == 2 else (cmds[0], "all")
            for n in search:
                if n not in table:
                    raise ValueError("invalid namespace <%s>. Valid names: %s" % (n, table.keys()))
            found, seen = set(), set()
            for n in search:
                if id(table[n]) not in seen:
                    seen.add(id(table[n]))
                    found.update(_ipy_search(table[n], name_pattern, type_name, ignore_case, "a" in given))
        except Exception as e:
            # IPython shows the traceback and the cell goes on (an ok reply).
            _ipy_state["shown_exc"] = _ipy_state["last_exc"] = e
            return None
        print("\n".join(sorted(found)))
        return None

    @staticmethod
    def _py_filename(name):
        """The file NAME or NAME.py names (~ expanded), as IPython's
        get_py_filename finds it; OSError when there is neither."""
        name = _ipy_os.path.expanduser(name)
        if _ipy_os.path.isfile(name):
            return name
        if not name.endswith(".py") and _ipy_os.path.isfile(name + ".py"):
            return name + ".py"
        raise OSError("File `%r` not found." % name)

    def _line_run(self, line):
        """Runs a Python file as a program, its names then in the interactive
        namespace."""
        import shlex

        args = shlex.split(line)
        # -i: in the notebook's namespace; -n: __name__ is not __main__.
        flags = set()
        while args and args[0] in ("-i", "-n"):
            flags.add(args.pop(0))
        if not args:
            raise UsageError("%run requires a file name")
        try:
            # IPython's get_py_filename: NAME, else NAME.py.
            path = self._py_filename(args[0])
        except OSError as e:
            raise Exception(str(e)) from e
        with open(path) as f:
            src = f.read()
        name = _ipy_os.path.splitext(_ipy_os.path.basename(path))[0] if "-n" in flags else "__main__"
        ns = dict(self.user_ns) if "-i" in flags else {}
        ns.update({"__name__": name, "__file__": _ipy_os.path.abspath(path), "__builtins__": _ipy_builtins})
        old = _ipy_sys.argv
        _ipy_sys.argv = args
        try:
            exec(compile(src, path, "exec"), ns)
        finally:
            _ipy_sys.argv = old
        self.user_ns.update({k: v for k, v in ns.items() if not k.startswith("__")})

    def _line_history(self, line):
        """The inputs of this session as written (-t: as transformed); -n
        numbers them, N or N-M picks."""
        args = line.split()
        inputs = self._inputs("-t" not in args)
        picked = []
        for a in args:
            if a.startswith("-"):
                continue
            lo, _, hi = a.partition("-")
            picked.extend(range(int(lo), int(hi or lo) + 1))
        for i in picked or range(1, len(inputs)):  # this cell too, as IPython files it first
            if 0 < i < len(inputs):
                src = inputs[i].expandtabs(4).rstrip()
                if "-n" in args:
                    src = "%4d:%s%s" % (i, "\n" if "\n" in src else " ", src)
                print(src)

    def _line_hist(self, line):
        """Alias for `%history`."""
        return self._line_history(line)

    def _history_pick(self, ranges):
        """The cells a range string names: as written, and as they ran."""
        return self._input_lines(ranges, True), self._input_lines(ranges, False)

    def _line_recall(self, line):
        """The last value, a history range, a value of the namespace or the
        latest cell with the text becomes the next input."""
        arg = line.strip()
        if not arg:
            self.set_next_input(str(self.user_ns.get("_", "")))
            return None
        cmd = self._history_pick(arg)[0]
        if cmd:
            self.set_next_input(cmd.rstrip())
            return None
        try:
            cmd = str(eval(arg, self.user_ns))
        except Exception:
            for h in reversed(self._inputs(True)[1:]):
                if arg in h and "recall" not in h and "rep" not in h:
                    self.set_next_input(h.rstrip())
                    return None
        else:
            self.set_next_input(cmd.rstrip())
            return None
        print("Couldn't evaluate or find in history:", arg)
        return None

    def _line_rep(self, line):
        """Alias for `%recall`."""
        return self._line_recall(line)

    def _line_rerun(self, line):
        """Runs cells of the history again: the last one, a range, the last
        n (-l n) or the latest with the text (-g text)."""
        opts, args = self._options(line, "", "lg")
        raw, ran = self._inputs(True), self._inputs(False)
        last = len(raw) - 1  # this cell
        if "l" in opts:
            try:
                n = int(opts["l"])
            except ValueError:
                print("Number of lines must be an integer")
                return None
            if n == 0:
                print("Requested 0 last lines - nothing to run")
                return None
            if n < 0:
                print("Number of lines to rerun cannot be negative")
                return None
            picked = list(range(max(1, last - n), last))
        elif "g" in opts:
            picked = [i for i in range(1, last + 1) if opts["g"] in raw[i] and "rerun" not in raw[i]][-1:]
        elif args:
            shown, code = self._history_pick(" ".join(args))
            picked = None
        else:
            picked = [last - 1] if last > 1 else []
        if picked is not None:
            shown = "\n".join(raw[i].rstrip("\n") for i in picked)
            code = "\n".join(ran[i].rstrip("\n") for i in picked)
        if not shown:
            print("No lines in history match specification")
            return None
        print("=== Executing: ===")
        print(shown)
        print("=== Output: ===")
        value = self._run_nested(code)
        if value is not None:
            _publish(*_display_bundle(value, False), None, False)
        return None

    def _line_loadpy(self, line):
        """Alias of `%load`."""
        return self._line_load(line)

    def _line_pycat(self, line):
        """A file, history range or macro's code (IPython shows it
        through its pager, as plain text in a kernel without colours)."""
        try:
            _page(self._user_code(line))
        except (ValueError, OSError):
            print("Error: no such file, variable, URL, history range or macro")
        return None

    def _line_page(self, line):
        """An object pretty-printed (-r: its str), through the pager."""
        import pprint

        opts, args = self._options(line, "r")
        name = " ".join(args) or "_"
        try:
            obj = self._lookup(name)
        except Exception:
            print("Object `%s` not found" % name)
            return None
        _page(str(obj) if "r" in opts else pprint.pformat(obj))
        return None

    def _line_gui(self, line):
        """Starts a GUI event loop integration (none is needed here)."""
        return None  # the inline backend needs no event loop

    def _line_pprint(self, line):
        """Turns pretty printing on or off."""
        _ipy_state["pprint"] = not _ipy_state["pprint"]
        print("Pretty printing has been turned", ["OFF", "ON"][_ipy_state["pprint"]])

    def _line_alias_magic(self, line):
        """Gives a magic another name: %alias_magic NEW OLD [-l | -c] [-p
        PARAMS]."""
        words = line.split()
        opts = {w for w in words if w.startswith("-")}
        names = [w.lstrip("%") for w in words if not w.startswith("-")]
        if len(names) != 2:
            raise UsageError("%alias_magic needs two arguments: the alias and the magic")
        alias, target = names
        kinds = [k for k, o in (("line", "-l"), ("cell", "-c")) if o in opts] or ["line", "cell"]
        found = False
        for kind in kinds:
            f = self.find_line_magic(target) if kind == "line" else self.find_cell_magic(target)
            if f is None:
                if kind in [k for k, o in (("line", "-l"), ("cell", "-c")) if o in opts]:
                    raise UsageError("%s magic `%s` not found." % (kind.capitalize(), target))
                continue
            found = True
            self.magics[kind][alias] = f
            print("Created `%s%s` as an alias for `%s%s`." % ("%" if kind == "line" else "%%", alias, "%" if kind == "line" else "%%", target))
        if not found:
            raise UsageError("Magic `%s` not found." % target)

    def _line_system(self, line):
        """Runs a shell command and returns its output lines, as !!cmd."""
        return self.getoutput(line)

    def _line_sx(self, line):
        """Runs a shell command and returns its output lines, as !!cmd."""
        return self.getoutput(line)

    # -- aliases ----------------------------------------------------------

    def _aliases(self):
        return sorted((n, f.cmd) for n, f in self.magics["line"].items() if isinstance(f, _Alias))

    def _line_alias(self, line):
        """Defines a shell command as a line magic: %alias NAME COMMAND (%s
        for each argument, %l for all); alone, lists them."""
        par = line.strip()
        if not par:
            aliases = self._aliases()
            print("Total number of aliases:", len(aliases))
            return aliases
        name, cmd = par.split(None, 1)
        try:
            self.magics["line"][name] = _Alias(self, name, cmd)
        except _AliasError as e:
            print(e)
        return None

    def _line_rehashx(self, line):
        """Every executable on PATH becomes a shell alias, dots left out of
        its name (the first on PATH wins), as IPython's %rehashx."""
        line_magics = self.magics["line"]
        for d in _ipy_os.environ.get("PATH", "").split(_ipy_os.pathsep):
            try:
                entries = list(_ipy_os.scandir(_ipy_os.path.abspath(_ipy_os.path.expanduser(d))))
            except OSError:
                continue
            for e in entries:
                try:
                    runs = e.is_file() and _ipy_os.access(e.path, _ipy_os.X_OK)
                except OSError:
                    runs = False
                if not runs or isinstance(line_magics.get(e.name), _Alias):
                    continue
                name = e.name.replace(".", "")
                try:
                    line_magics[name] = _Alias(self, name, e.name)
                except _AliasError:  # a magic's or a keyword's name
                    pass
        return None

    def _line_unalias(self, line):
        """Removes an alias %alias defined."""
        name = line.strip()
        if not isinstance(self.magics["line"].get(name), _Alias):
            print("%s is not an alias" % name)
            return None
        del self.magics["line"][name]
        return None

    # -- history, macros, %save, %load -------------------------------------

    def _inputs(self, raw):
        """The session's inputs, In[0] empty: as the front end sent them
        (raw) or as transformed (In)."""
        return _ipy_state["raw"] if raw else (self.user_ns.get("In") or [""])

    def _input_lines(self, ranges, raw):
        """The cells of this session a range string names (N, N-M inclusive,
        N:M exclusive, as %history), joined; "" when it names none."""
        import re

        inputs = self._inputs(raw)
        last = len(inputs) - 1  # this cell
        if not ranges.strip():
            return "\n".join(x.rstrip("\n") for x in inputs[1:last])
        out = []
        for r in ranges.split():
            m = re.fullmatch(r"(\d+)?(?:([-:])(\d+))?", r)
            if not m or m.group(1) is None:
                continue
            lo = int(m.group(1))
            hi = lo + 1 if m.group(3) is None else int(m.group(3)) + (1 if m.group(2) == "-" else 0)
            out.extend(inputs[i].rstrip("\n") for i in range(lo, min(hi, len(inputs))) if i >= 1)
        return "\n".join(out)

    @staticmethod
    def _read_url(url):
        """A Python file's text from url, as IPython's read_py_url reads it:
        decoded as its encoding cookie says (undecodable bytes replaced),
        the cookie's line left out. urllib's URLError when it cannot."""
        import io
        import re
        import tokenize

        data = _ipy_fetch(url)
        try:
            enc, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError:
            enc = "ascii"
        text = io.TextIOWrapper(io.BytesIO(data), enc, errors="replace", line_buffering=True)
        lines = text.read().splitlines(keepends=True)
        cookie = re.compile(r"^\s*#.*coding[:=]\s*([-\w.]+)", re.UNICODE)
        lines = [l for i, l in enumerate(lines) if i >= 2 or not cookie.match(l)]
        return "".join(lines)

    def _user_code(self, target, raw=True):
        """IPython's find_user_code: history ranges, a file (NAME or
        NAME.py), a string or a Macro in the namespace."""
        code = self._input_lines(target, raw)
        if code:
            return code
        if target.startswith(("http://", "https://")):
            return self._read_url(target)
        paths = [target]
        try:
            paths.insert(0, self._py_filename(target))
        except OSError:
            pass
        for path in paths:
            if _ipy_os.path.isfile(path):
                try:
                    with open(path, encoding="utf-8") as f:
                        return f.read()
                except UnicodeDecodeError:
                    with open(path, encoding="latin1") as f:
                        return f.read()
            if _ipy_os.path.isdir(_ipy_os.path.expanduser(path)):
                raise ValueError("'%s' is a directory, not a regular file." % target)
        try:
            obj = eval(target, self.user_ns)
        except Exception:
            raise ValueError("'%s' was not found in history, as a file, url, nor in the user namespace." % target) from None
        if isinstance(obj, str):
            return obj
        if isinstance(obj, Macro):
            return obj.value
        raise TypeError("%s is neither a string nor a macro." % target, obj)

    @staticmethod
    def _options(line, flags, with_value=""):
        """IPython's parse_options for a list: the flags given (a value for
        those in with_value) and the other words."""
        import shlex

        words = shlex.split(line)
        opts, rest = {}, []
        i = 0
        while i < len(words):
            w = words[i]
            if w.startswith("-") and len(w) > 1 and not rest:
                j = 1
                while j < len(w):
                    c = w[j]
                    if c in with_value:
                        if j + 1 < len(w):
                            opts[c] = w[j + 1:]
                        elif i + 1 < len(words):
                            i += 1
                            opts[c] = words[i]
                        else:
                            raise UsageError("option -%s requires argument (allowed: \"%s\")" % (c, _getopt_spec(flags, with_value)))
                        break
                    if c not in flags:
                        raise UsageError("option -%s not recognized (allowed: \"%s\")" % (c, _getopt_spec(flags, with_value)))
                    opts[c] = ""
                    j += 1
            else:
                rest.append(w)
            i += 1
        return opts, rest

    def _line_macro(self, line):
        """Names a series of inputs so that the name runs them: %macro NAME
        RANGES."""
        opts, args = self._options(line, "rq")
        if not args:
            return sorted(k for k, v in self.user_ns.items() if isinstance(v, Macro))
        if len(args) == 1:
            raise UsageError("%macro insufficient args; usage '%macro name n1-n2 n3-4...")
        name, target = args[0], " ".join(args[1:])
        try:
            code = self._user_code(target, "r" in opts)
        except (ValueError, TypeError) as e:
            print(e.args[0])
            return None
        macro = Macro(code)
        self.user_ns[name] = macro
        if "q" not in opts:
            print("Macro `%s` created. To execute, type its name (without quotes)." % name)
            print("=== Macro contents: ===")
            print(macro, end=" ")
        return None

    def _line_save(self, line):
        """Saves inputs, a file, a string or a macro to a file: %save [-r]
        [-f] [-a] FILE RANGES."""
        opts, args = self._options(line, "fra")
        if not args:
            raise UsageError("Missing filename.")
        raw, force, append = "r" in opts, "f" in opts, "a" in opts
        name, target = args[0], " ".join(args[1:])
        if not name.endswith((".py", ".ipy")):
            name += ".ipy" if raw else ".py"
        name = _ipy_os.path.expanduser(name)
        exists = _ipy_os.path.isfile(name)
        if exists and not force and not append:
            # A kernel asks before it overwrites; without stdin it says how to force it.
            print("File `{}` exists. Use `%save -f {}` to force overwrite".format(name, line))
            return None
        try:
            cmds = self._user_code(target, raw)
        except (TypeError, ValueError) as e:
            print(e.args[0])
            return None
        with open(name, "a" if append else "w", encoding="utf-8") as f:
            if not exists or not append:
                f.write("# coding: utf-8\n")
            f.write(cmds)
            if not cmds.endswith("\n"):
                f.write("\n")
        print("The following commands were written to file `%s`:" % name)
        print(cmds)
        return None

    def _line_load(self, line):
        """%load: the code becomes the next input (a kernel's
        set_next_input payload, which replaces the cell); here a display
        output with the code as text/plain and that payload as metadata."""
        import ast

        opts, args = self._options(line, "yn", "sr")
        contents = self._user_code(" ".join(args))
        if "s" in opts:
            try:
                tree = ast.parse(contents)
            except SyntaxError:
                print("ERROR:root:Unable to parse the input as valid Python code", file=_ipy_sys.stderr)
                return None
            wanted = opts["s"].split(",")
            lines = contents.split("\n")
            blocks, found = [], set()
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in wanted:
                    # From the def line, as IPython's extract_symbols: decorators are left out.
                    blocks.append("\n".join(lines[node.lineno - 1:node.end_lineno]) + "\n")
                    found.add(node.name)
            missing = [w for w in wanted if w not in found]
            if len(missing) == 1:
                print("WARNING:root:The symbol `%s` was not found" % missing[0], file=_ipy_sys.stderr)
            elif missing:
                print("WARNING:root:The symbols %s were not found" % ", ".join("`%s`" % m for m in missing), file=_ipy_sys.stderr)
            contents = "\n".join(blocks)
        if "r" in opts:
            lines = contents.split("\n")
            picked = []
            for part in opts["r"].replace(",", " ").split():
                lo, sep, hi = part.partition(":") if ":" in part else part.partition("-")
                a = int(lo) - 1 if lo else 0
                b = (int(hi) if sep == "-" else int(hi) - 1) if hi else None
                if not sep:
                    b = a + 1
                picked.extend(lines[a:b])
            indent = min((len(x) - len(x.lstrip()) for x in picked if x.strip()), default=0)
            contents = "\n".join(x[indent:] for x in picked)
        contents = "# %%load %s\n%s" % (line, contents)
        self.set_next_input(contents, replace=True)
        return None

    def set_next_input(self, text, replace=False):
        """A kernel's set_next_input payload, as a display output: the text,
        the payload in its metadata."""
        _publish({"text/plain": text}, {"payload": {"source": "set_next_input", "replace": bool(replace)}}, None, False)

    # -- bookmarks ----------------------------------------------------------

    def _line_bookmark(self, line):
        """Bookmarks for %cd -b, kept for the kernel's session."""
        opts, args = self._options(line, "drl")
        if len(args) > 2:
            raise UsageError("%bookmark: too many arguments")
        marks = _ipy_state["bookmarks"]
        if "d" in opts:
            if not args:
                raise UsageError("%bookmark -d: must provide a bookmark to delete")
            if args[0] not in marks:
                raise UsageError("%%bookmark -d: Can't delete bookmark '%s'" % args[0])
            del marks[args[0]]
        elif "r" in opts:
            marks.clear()
        elif "l" in opts:
            size = max(map(len, marks), default=0)
            print("Current bookmarks:")
            for name in sorted(marks):
                print("%-*s -> %s" % (size, name, marks[name]))
        elif not args:
            raise UsageError("%bookmark: You must specify the bookmark name")
        else:
            marks[args[0]] = args[1] if len(args) == 2 else _ipy_os.getcwd()
        return None

    # -- tracebacks and the debugger ------------------------------------------

    def _line_tb(self, line):
        """The last exception again, as IPython's kernel shows it: an error
        output (the driver sends it with the cell's ok reply); a UsageError
        as IPython shows one, its message on stderr."""
        exc = _ipy_state["last_exc"]
        if exc is None:
            print("No traceback available to show.", file=_ipy_sys.stderr)
            return None
        if isinstance(exc, UsageError):
            print("UsageError: %s" % exc, file=_ipy_sys.stderr)
            return None
        _ipy_state["shown_exc"] = exc
        return None

    def _line_debug(self, line):
        """The debugger on the last exception (post mortem), or on a statement
        given."""
        if line.strip():
            return self._debug_run(line)
        exc = _ipy_state["last_exc"]
        if exc is None:
            print("ERROR:root:No traceback has been produced, nothing to debug.", file=_ipy_sys.stderr)
            return None
        self._post_mortem(exc)

    def _post_mortem(self, exc):
        """The debugger on exc's last frame (%debug, or an error with %pdb
        on): its place, then its prompt, which cannot read stdin."""
        import linecache

        place = _carried_place(exc) if isinstance(exc, _CarriedError) else None
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        if tb is not None:
            place = tb.tb_frame.f_code.co_filename, tb.tb_lineno, tb.tb_frame.f_code.co_name
        if place is not None:
            file, n, name = place
            lines = ["> %s(%d)%s()" % (file, n, name)]
            # IPython's debugger lists 5 lines (its context), the current
            # one third unless the file's start or end is nearer.
            src = linecache.getlines(file)
            start = max(min(n - 3, len(src) - 5), 0)
            for i, ln in enumerate(src[start:start + 5], start + 1):
                lines.append("%s %s" % (("> %d" % i).rjust(7, "-") if i == n else "%7d" % i, ln.rstrip("\n")))
            print("\n".join(lines) + "\n")
        # The debugger's prompt reads stdin, which a kernel's front end has not given.
        raise StdinNotImplementedError(_NO_STDIN)

    def _cell_debug(self, line, cell):
        """Runs the cell in the debugger."""
        return self._debug_run(cell)

    def _debug_run(self, code):
        """%debug STATEMENT: the debugger stops at its first line and asks
        for a command, which a kernel without stdin cannot read."""
        first = next((i + 1 for i, ln in enumerate(code.split("\n")) if ln.strip() and not ln.lstrip().startswith("#")), 1)
        print("NOTE: Enter 'c' at the ipdb>  prompt to continue execution.")
        print("> <string>(%d)<module>()\n" % first)
        print("-" * 75)
        print("StdinNotImplementedError                  Traceback (most recent call last)")
        print("StdinNotImplementedError: " + _NO_STDIN)
        return None

    # -- %pylab -----------------------------------------------------------------

    def _line_pylab(self, line):
        """Sets matplotlib's backend and imports numpy and pyplot's names into
        the namespace."""
        gui = next((w for w in line.split() if not w.startswith("-")), "inline")
        print("%pylab is deprecated, use %matplotlib inline and import the required libraries.")
        self._line_matplotlib(gui)
        import importlib

        np = importlib.import_module("numpy")
        pylab = importlib.import_module("pylab")
        plt = importlib.import_module("matplotlib.pyplot")
        ns = {}
        exec("from pylab import *\nfrom numpy import *\n", ns)
        ns.pop("__builtins__", None)
        ns.update({"numpy": np, "np": np, "pylab": pylab, "mpl": importlib.import_module("matplotlib"), "plt": plt})
        ns["display"] = display
        clobbered = sorted(k for k, v in ns.items() if k in self.user_ns and self.user_ns[k] is not v and not k.startswith("_"))
        self.user_ns.update(ns)
        print("Populating the interactive namespace from numpy and matplotlib")
        if clobbered and "--no-import-all" not in line:
            import warnings

            warnings.warn("pylab import has clobbered these variables: %s\n`%%matplotlib` prevents importing * from pylab and numpy" % clobbered)
        return None

    # -- logging ------------------------------------------------------------------

    def _line_logstart(self, line):
        """Starts logging the session's inputs to a file: %logstart [-o] [-r]
        [-t] [-q] [FILE [MODE]]."""
        opts, args = self._options(line, "ortq")
        log = _ipy_state["log"]
        name, mode = ("ipython_log.py", "rotate") if not args else (args[0], args[1] if len(args) > 1 else "backup")
        if len(args) > 2:
            name, mode = " ".join(args), "backup"
        try:
            if log is not None:
                raise RuntimeError("Log file is already active: %s" % log["name"])
            if mode not in ("append", "backup", "global", "over", "rotate"):
                raise ValueError("invalid log mode %s given" % mode)
            name = _ipy_os.path.expanduser(name)
            f = self._open_log(name, mode)
        except Exception as e:
            print("UserWarning: Couldn't start log: %s" % e, file=_ipy_sys.stderr)
            return None
        log = _ipy_state["log"] = {"name": name, "mode": mode, "output": "o" in opts, "raw": "r" in opts, "time": "t" in opts, "file": f, "active": True}
        inputs = self._inputs(log["raw"])
        if log["output"]:
            outs = self.user_ns.get("Out") or {}
            for n in range(1, len(inputs) - 1):
                _log_write(inputs[n].rstrip() + "\n")
                if n in outs:
                    _log_write(repr(outs[n]), "output")
        else:
            _log_write("\n".join(x.rstrip("\n") for x in inputs[1:]))
            _log_write("\n")
        if "q" not in opts:
            print("Activating auto-logging. Current session state plus future input saved.")
            self._line_logstate("")
        return None

    @staticmethod
    def _open_log(name, mode):
        isfile = _ipy_os.path.isfile
        if mode == "backup" and isfile(name):
            if isfile(name + "~"):
                _ipy_os.remove(name + "~")
            _ipy_os.rename(name, name + "~")
        elif mode == "over" and isfile(name):
            _ipy_os.remove(name)
        elif mode == "rotate" and isfile(name):
            import glob

            if isfile(name + ".001~"):
                for old in sorted(glob.glob(name + ".*~"), reverse=True):
                    root, ext = _ipy_os.path.splitext(old)
                    _ipy_os.rename(old, root + "." + str(int(ext[1:-1]) + 1).zfill(3) + "~")
            _ipy_os.rename(name, name + ".001~")
        if mode == "global":
            name = _ipy_os.path.join(_ipy_os.path.expanduser("~"), name)
        f = open(name, "a" if mode in ("append", "global") else "w", encoding="utf-8")
        if mode != "append":
            f.write("# IPython log file\n\n")
        f.flush()
        return f

    def _line_logstate(self, line):
        """Prints the state of the input log."""
        log = _ipy_state["log"]
        if log is None:
            print("Logging has not been activated.")
            return None
        print("Filename       :", log["name"])
        print("Mode           :", log["mode"])
        print("Output logging :", log["output"])
        print("Raw input log  :", log["raw"])
        print("Timestamping   :", log["time"])
        print("State          :", "active" if log["active"] else "temporarily suspended")
        return None

    def _line_logstop(self, line):
        """Stops the input log and closes its file."""
        log = _ipy_state["log"]
        if log is None:
            print("Logging hadn't been started.")
            return None
        log["file"].close()
        _ipy_state["log"] = None
        return None

    def _switch_log(self, on):
        log = _ipy_state["log"]
        if log is None:
            print("\nLogging hasn't been started yet (use logstart for that).\n\n%logon/%logoff are for temporarily starting and stopping logging for a logfile\n"
                  "which already exists. But you must first start the logging process with\n%logstart (optionally giving a logfile name).")
        elif log["active"] == on:
            print("Logging is already", "ON" if on else "OFF")
        else:
            print("Switching logging", "ON" if on else "OFF")
            log["active"] = on
        return None

    def _line_logon(self, line):
        """Resumes the input log."""
        return self._switch_log(True)

    def _line_logoff(self, line):
        """Pauses the input log."""
        return self._switch_log(False)

    # -- %prun --------------------------------------------------------------------

    def _prun(self, line, cell):
        import cProfile
        import io
        import pstats
        import shlex

        words = shlex.split(line, posix=False)
        opts = {"s": [], "l": []}
        i = 0
        while i < len(words) and words[i].startswith("-") and len(words[i]) > 1:
            w = words[i]
            c = w[1]
            if c not in "DlrsTq":
                raise UsageError("option %s not recognized (allowed: \"D:l:rs:T:q\")" % w[:2])
            if c in "DlsT":
                if len(w) > 2:
                    v = w[2:]
                elif i + 1 < len(words):
                    i += 1
                    v = words[i]
                else:
                    raise UsageError("option -%s requires argument (allowed: \"D:l:rs:T:q\")" % c)
                opts.setdefault(c, [])
                opts[c].append(v)
            else:
                opts[c] = True
                for extra in w[2:]:
                    opts[extra] = True
            i += 1
        code = _rest_as_written(line, words[:i])
        if cell is not None:
            code += "\n" + cell
        prof = cProfile.Profile()
        sys_exit = ""
        try:
            prof = prof.runctx(code, self.user_ns, self.user_ns)
        except SystemExit:
            sys_exit = "*** SystemExit exception caught in code being profiled."
        limits = []
        for v in opts["l"]:
            try:
                limits.append(int(v))
            except ValueError:
                try:
                    limits.append(float(v))
                except ValueError:
                    limits.append(v)
        out = io.StringIO()
        stats = pstats.Stats(prof, stream=out).strip_dirs().sort_stats(*(opts["s"] or ["time"]))
        stats.print_stats(*limits)
        text = out.getvalue().rstrip()
        if not opts.get("q"):
            print(text)  # a kernel pages it
        print(sys_exit, end=" ")
        for path in opts.get("D", [])[-1:]:
            prof.dump_stats(path)
            print("\n*** Profile stats marshalled to file %r.%s" % (path, sys_exit))
        for path in opts.get("T", [])[-1:]:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            print("\n*** Profile printout saved to text file %r.%s" % (path, sys_exit))
        return stats if opts.get("r") else None

    def _line_prun(self, line):
        """Runs a statement in the profiler and prints its table: %prun [-s
        KEY] [-l LIMIT] [-q] [-D FILE] [-T FILE] STATEMENT."""
        return self._prun(line, None)

    def _cell_prun(self, line, cell):
        """Runs the cell in the profiler and prints its table."""
        return self._prun(line, cell)

    def _cell_sx(self, line, cell):
        """Runs the cell in a shell and returns its output lines."""
        words, out = line.split(), None
        for flag in ("-o", "--out"):
            if flag in words and words.index(flag) + 1 < len(words):
                out = words[words.index(flag) + 1]
        lines = self.getoutput(cell)
        if out:
            self.user_ns[out] = lines
            return None
        return lines

    def _cell_system(self, line, cell):
        """Runs the cell in a shell and returns its output lines."""
        return self._cell_sx(line, cell)

    # -- cell magics ------------------------------------------------------

    def _script(self, line, cell):
        """%%script PROGRAM: the cell's text is the program's stdin and its
        output the cell's, or a variable's (--out, --err), as IPython's
        ScriptMagics; a failing program raises CalledProcessError unless
        --no-raise-error; --bg leaves it running."""
        import shlex
        import subprocess

        p = _magic_parser("%%script")
        p.add_argument("--out", type=str)
        p.add_argument("--err", type=str)
        p.add_argument("--bg", action="store_true")
        p.add_argument("--proc", type=str)
        p.add_argument("--no-raise-error", action="store_false", dest="raise_error")
        args, cmd = p.parse_known_args(shlex.split(line))
        for var in (args.out, args.err):
            if var:
                self.user_ns[var] = ""
        if not cmd:
            # IPython passes the empty command to asyncio, which says this.
            raise TypeError("create_subprocess_exec() missing 1 required positional argument: 'program'")
        if not cell.endswith("\n"):
            cell += "\n"
        data = cell.encode("utf-8", "replace")
        if args.bg:
            return self._script_bg(cmd, data, args)
        self._flush()
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except FileNotFoundError:
            print("Couldn't find program: %r" % cmd[0])
            return None
        try:
            self._pump(proc, data, args.out, args.err)
        except KeyboardInterrupt:
            # As IPython: SIGINT, then SIGTERM, then SIGKILL, each given a
            # moment; the interrupt ends as the program's failure.
            import signal

            for send, said in ((lambda: proc.send_signal(signal.SIGINT), "interrupted"), (proc.terminate, "terminated"), (proc.kill, None)):
                try:
                    send()
                except OSError:
                    break
                try:
                    proc.wait(0.1 if said else None)
                except subprocess.TimeoutExpired:
                    continue
                print("Process was %s." % (said or "killed"))
                break
            if args.raise_error:
                raise subprocess.CalledProcessError(proc.returncode, data) from None
            return None
        if args.raise_error and proc.returncode != 0:
            raise subprocess.CalledProcessError(proc.returncode, data)
        return None

    def _pump(self, proc, data, out_var, err_var):
        """Feeds data to the program and writes what it prints to the
        cell's streams (or adds it to out_var, err_var) as it comes."""
        import codecs
        import selectors

        sel = selectors.DefaultSelector()
        _ipy_os.set_blocking(proc.stdin.fileno(), False)
        sel.register(proc.stdin, selectors.EVENT_WRITE)
        for f, var, stream in ((proc.stdout, out_var, _ipy_sys.stdout), (proc.stderr, err_var, _ipy_sys.stderr)):
            sel.register(f, selectors.EVENT_READ, (var, stream, codecs.getincrementaldecoder("utf-8")(errors="replace")))
        view = memoryview(data)
        while sel.get_map():
            for key, _ in sel.select():
                f = key.fileobj
                if f is proc.stdin:
                    try:
                        view = view[_ipy_os.write(f.fileno(), view[:65536]):]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # the program stopped reading
                        view = view[:0]
                    if not view:
                        sel.unregister(f)
                        try:
                            f.close()
                        except BrokenPipeError:
                            pass
                    continue
                chunk = _ipy_os.read(f.fileno(), 65536)
                var, stream, dec = key.data
                text = dec.decode(chunk, final=not chunk)
                if text and var:
                    self.user_ns[var] += text
                elif text:
                    stream.write(text)
                    stream.flush()
                if not chunk:
                    sel.unregister(f)
                    f.close()
        sel.close()
        return proc.wait()

    def _script_bg(self, cmd, data, args):
        """%%script --bg: the program runs on an event loop of its own, as
        in IPython; --out and --err name its pipes and --proc the process,
        whose coroutine methods give futures (await out.read())."""
        import asyncio

        loop = _ipy_bg_loop()

        def run(coro):
            return asyncio.run_coroutine_threadsafe(coro, loop).result()

        try:
            proc = run(asyncio.create_subprocess_exec(*cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE))
        except FileNotFoundError:
            print("Couldn't find program: %r" % cmd[0])
            return None
        _ipy_state["bg"] = [x for x in _ipy_state["bg"] if x.returncode is None] + [proc]
        unread = []
        for var, pipe in ((args.out, proc.stdout), (args.err, proc.stderr)):
            if var:
                self.user_ns[var] = _AsyncIOProxy(pipe, loop)
            else:
                unread.append(pipe)

        async def feed():
            proc.stdin.write(data)
            await proc.stdin.drain()
            proc.stdin.close()
            await proc.wait()
            for pipe in unread:  # drained, as nobody reads them
                await pipe.read()

        loop.call_soon_threadsafe(lambda: loop.create_task(feed()))
        if args.proc:
            proxy = _AsyncIOProxy(proc, loop)
            proxy.stdout, proxy.stderr = _AsyncIOProxy(proc.stdout, loop), _AsyncIOProxy(proc.stderr, loop)
            self.user_ns[args.proc] = proxy
        return None

    def _line_killbgscripts(self, line):
        """Stops the programs %%script --bg started: SIGINT, then SIGTERM,
        then SIGKILL, as IPython."""
        import signal

        for how in (lambda p: p.send_signal(signal.SIGINT), lambda p: p.terminate(), lambda p: p.kill()):
            running = [p for p in _ipy_state["bg"] if p.returncode is None]
            for p in running:
                try:
                    how(p)
                except OSError:
                    pass
            deadline = _ipy_time.monotonic() + 0.1
            while any(p.returncode is None for p in running) and _ipy_time.monotonic() < deadline:
                _ipy_time.sleep(0.01)
        _ipy_state["bg"] = [p for p in _ipy_state["bg"] if p.returncode is None]
        print("All background processes were killed.")

    def _named_script(self, prog, line, cell):
        return self._script(prog + (" " + line if line else ""), cell)

    def _cell_script(self, line, cell):
        """Runs the cell with a program: %%script PROGRAM [--bg] [--out NAME]
        [--err NAME]."""
        return self._script(line, cell)

    def _cell_sh(self, line, cell):
        """Runs the cell with sh."""
        return self._named_script("sh", line, cell)

    def _cell_bash(self, line, cell):
        """Runs the cell with bash."""
        return self._named_script("bash", line, cell)

    def _cell_perl(self, line, cell):
        """Runs the cell with perl."""
        return self._named_script("perl", line, cell)

    def _cell_ruby(self, line, cell):
        """Runs the cell with ruby."""
        return self._named_script("ruby", line, cell)

    def _cell_python(self, line, cell):
        """Runs the cell with python, a program of its own."""
        return self._named_script("python", line, cell)

    def _cell_python2(self, line, cell):
        """Runs the cell with python2."""
        return self._named_script("python2", line, cell)

    def _cell_python3(self, line, cell):
        """Runs the cell with python3, a program of its own."""
        return self._named_script("python3", line, cell)

    def _cell_pypy(self, line, cell):
        """Runs the cell with pypy."""
        return self._named_script("pypy", line, cell)

    def _cell_file(self, line, cell):
        """Alias for `%%writefile`."""
        return self._cell_writefile(line, cell)

    def _cell_writefile(self, line, cell):
        """Writes the cell to a file: %%writefile [-a] FILE."""
        p = _magic_parser("%%writefile")
        p.add_argument("-a", "--append", action="store_true")
        p.add_argument("filename", type=str)
        args = p.parse_args(_arg_split(line))
        name = args.filename
        if len(name) > 1 and name[0] == name[-1] and name[0] in "'\"":
            name = name[1:-1]
        name = _ipy_os.path.expanduser(name)
        if _ipy_os.path.exists(name):
            print(("Appending to %s" if args.append else "Overwriting %s") % name)
        else:
            print("Writing %s" % name)
        with open(name, "a" if args.append else "w", encoding="utf-8") as f:
            f.write(cell)

    def _cell_capture(self, line, cell):
        """Runs the cell with its stdout, stderr and displays (its value
        too) kept in a CapturedIO, as IPython's %%capture; after a ';' the
        variable is removed instead."""
        p = _magic_parser("%%capture")
        p.add_argument("output", type=str, default="", nargs="?")
        p.add_argument("--no-stderr", action="store_true")
        p.add_argument("--no-stdout", action="store_true")
        p.add_argument("--no-display", action="store_true")
        args = p.parse_args(_arg_split(line))
        out = None if args.no_stdout else _Capture()
        err = None if args.no_stderr else _Capture()
        displays = None if args.no_display else []
        old = (_ipy_sys.stdout, _ipy_sys.stderr, _ipy_state["capture"])
        _ipy_sys.stdout, _ipy_sys.stderr = out or _ipy_sys.stdout, err or _ipy_sys.stderr
        if displays is not None:
            _ipy_state["capture"] = displays
        failed = None
        try:
            try:
                value = self._run_nested(cell)
                if value is not None:  # the cell's value, as the displayhook shows it
                    _publish(*_display_bundle(value, False), None, False)
            finally:
                # IPython runs the cell with run_cell: its post_execute shows
                # the open figures (the inline backend's flush) into the capture.
                show()
        except BaseException as e:  # IPython shows it and keeps what came before
            failed = e
        finally:
            _ipy_sys.stdout, _ipy_sys.stderr, _ipy_state["capture"] = old
        if _ends_in_semicolon(cell):
            self.user_ns.pop(args.output, None)
        elif args.output:
            self.user_ns[args.output] = CapturedIO(out, err, displays or [])
        if failed is not None:
            raise failed

    def _cell_html(self, line, cell):
        """Shows the cell as HTML."""
        p = _magic_parser("%%html")
        p.add_argument("--isolated", action="store_true")
        if p.parse_args(_arg_split(line)).isolated:
            display(HTML(cell), metadata={"text/html": {"isolated": True}})
        else:
            display(HTML(cell))

    def _cell_HTML(self, line, cell):
        """Alias for `%%html`."""
        return self._cell_html(line, cell)

    def _cell_markdown(self, line, cell):
        """Shows the cell as Markdown."""
        display(Markdown(cell))

    def _cell_latex(self, line, cell):
        """Shows the cell as LaTeX."""
        display(Latex(cell))

    def _cell_javascript(self, line, cell):
        """Runs the cell as JavaScript in the front end."""
        display(Javascript(cell))

    def _cell_js(self, line, cell):
        """Runs the cell as JavaScript in the front end."""
        return self._cell_javascript(line, cell)

    def _cell_svg(self, line, cell):
        """Shows the cell as SVG."""
        display(SVG(cell))

    def _cell_SVG(self, line, cell):
        """Alias for `%%svg`."""
        return self._cell_svg(line, cell)


    # -- the debugger, autocall, autoawait, colors --------------------------

    def _line_pdb(self, line):
        """Turns the debugger on or off for the exceptions of later cells:
        %pdb on (or 1), %pdb off (or 0), or %pdb alone to toggle. With it
        on, a cell's exception stops in the debugger at its last frame."""
        arg = line.strip().lower()
        if arg:
            on = {"off": False, "0": False, "on": True, "1": True}.get(arg)
            if on is None:
                print("Incorrect argument. Use on/1, off/0, or nothing for a toggle.")
                return None
        else:
            on = not _ipy_state["pdb"]
        _ipy_state["pdb"] = on
        print("Automatic pdb calling has been turned", "ON" if on else "OFF")
        return None

    def _line_autocall(self, line):
        """Calls a callable written without parentheses: %autocall 0 (off),
        1 (smart: only with arguments on the line), 2 (full: a bare name
        too), or %autocall alone to toggle, back to the last mode on."""
        modes = ("Off", "Smart", "Full")
        if line:
            if line not in ("0", "1", "2"):
                print("ERROR:root:Valid modes: " + ", ".join("%d->%s" % m for m in enumerate(modes)), file=_ipy_sys.stderr)
                return None
            _ipy_state["autocall"] = int(line)
        elif _ipy_state["autocall"]:
            _ipy_state["autocall_save"], _ipy_state["autocall"] = _ipy_state["autocall"], 0
        else:
            _ipy_state["autocall"] = _ipy_state["autocall_save"] = _ipy_state["autocall_save"] or 1
        print("Automatic calling is:", modes[_ipy_state["autocall"]])
        return None

    def _line_autoawait(self, line):
        """Whether a cell may await at its top level: %autoawait off (or
        false), on (or true), a runner's name (asyncio, curio, trio, sync),
        a name in the namespace or a dotted name to import as the runner;
        alone, the current setting."""
        import importlib

        arg = line.strip()
        if not arg:
            print("IPython autoawait is `%s`, and set to use `%s`" % ("on" if _ipy_state["autoawait"] else "off", _ipy_state["loop_runner"]))
        elif arg.lower() in ("false", "off"):
            _ipy_state["autoawait"] = False
        elif arg.lower() in ("true", "on"):
            _ipy_state["autoawait"] = True
        elif arg in ("asyncio", "curio", "trio", "sync"):
            _ipy_state["loop_runner"], _ipy_state["autoawait"] = arg, arg != "sync"
        else:
            if arg in self.user_ns:
                runner = self.user_ns[arg]
            else:
                module, _, attr = arg.rpartition(".")
                runner = getattr(importlib.import_module(module), attr) if module else importlib.import_module(arg)
            _ipy_state["loop_runner"], _ipy_state["autoawait"] = runner, True
        return None

    _THEMES = ("nocolor", "linux", "neutral", "neutral:nt", "neutral:posix", "lightbg", "pride", "pride:l", "gruvbox-dark")

    def _line_colors(self, line):
        """Sets the colour theme of tracebacks and help: %colors THEME."""
        theme = line.strip()
        if not theme:
            raise UsageError("%%colors: you must specify a color theme. See '%%colors?'. Available themes: %s" % list(self._THEMES))
        if theme.lower() not in self._THEMES:
            import warnings

            # IPython's inspector warns, then its theme lookup fails.
            warnings.warn("Error changing object inspector color schemes.\n")
            raise AssertionError()
        _ipy_state["colors"] = theme.lower()
        return None

    # -- help on the magics -----------------------------------------------

    _MAGIC_INTRO = """
Magics of this IPython shell
============================

A magic is a command for the shell rather than Python code. A line magic
starts with one % and takes the rest of its line as its argument, written as
on a command line. A cell magic starts a cell with %% and takes the rest of
that line and the cell's other lines.

With automagic on (%automagic), a line magic needs no % when no variable has
its name. %lsmagic lists the magics; %NAME? shows one magic's help.

The magics, each with its help:"""

    _QUICK_REFERENCE = """
Quick reference of this IPython shell
=====================================

Help
  obj? or ?obj           : the object's signature and documentation
  obj?? or ??obj         : its source too, when there is any
  %magic                 : the magics, each with its help
  %lsmagic               : the names of the magics

Magics
  %NAME args             : a line magic; without % when automagic is on
  %%NAME args + lines    : a cell magic, at the top of its cell

The shell
  !cmd                   : runs cmd in a shell
  x = !cmd               : its output lines, as a list
  $name, {expression}    : Python values in a shell command

History
  _, __, ___             : the last three values
  _N, Out[N]             : the value of cell N
  _iN, In[N]             : the input of cell N
  %history, %recall N    : the inputs; one of them again

Autocall (%autocall)
  f x                    : f(x)
  /f x                   : f(x), even with autocall off

The magics, each with the first line of its help:
"""

    def _magic_docs(self, brief=False, rest=False):
        """Each magic's name and its docstring (the first line of it when
        brief), line magics then cell magics, by name."""
        import inspect

        out = []
        for kind, esc in (("line", "%"), ("cell", "%%")):
            for name in sorted(self._magic_names(kind)):
                f = self.magics[kind].get(name) or getattr(self, "_%s_%s" % (kind, name))
                doc = inspect.cleandoc(getattr(f, "__doc__", None) or "No documentation")
                if brief:
                    doc = doc.split("\n", 1)[0]
                body = "\n".join(("    " + ln) if ln else ln for ln in doc.split("\n"))
                out.append(("**%s%s**::\n\n%s\n\n" if rest else "%s%s:\n%s\n") % (esc, name, body))
        return "".join(out)

    def _line_magic(self, line):
        """Prints the magics with their help, then the list of them:
        %magic -brief shows the first line of each magic's help, %magic
        -rest formats them as reStructuredText."""
        words = line.split()
        mode = words[0][1:] if words else ""
        docs = self._magic_docs(mode == "brief", mode == "rest")
        _page("\n".join([self._MAGIC_INTRO, docs, "Summary of magic functions (from %lsmagic):", str(self._line_lsmagic(""))]))
        return None

    def _line_quickref(self, line):
        """Prints a quick reference of the shell's syntax and the first line
        of each magic's help."""
        _page(self._QUICK_REFERENCE + self._magic_docs(brief=True))
        return None

    # -- %notebook, %pastebin, %edit ----------------------------------------

    def _line_notebook(self, line):
        """Writes this session's inputs and their outputs as a notebook:
        %notebook FILE.ipynb (nbformat 4), relative to the working folder."""
        import json
        import platform
        import uuid

        p = _magic_parser("%notebook")
        p.add_argument("filename", type=str)
        args = p.parse_args(_arg_split(line))
        raws = _ipy_state["raw"]
        if len(raws) <= 2:  # this cell alone
            raise ValueError("History is empty, cannot export")

        def lines(text):
            return text.splitlines(True)

        def split(data):
            # As nbformat writes a bundle: text in lines, JSON as it is.
            return {k: lines(v) if isinstance(v, str) and k != "application/json" and not k.endswith("+json") else v for k, v in data.items()}

        cells = []
        for n in range(1, len(raws) - 1):
            outputs = []
            for o in _ipy_state["outputs"].get(n, ()):
                o = dict(o)
                if o["output_type"] == "stream":
                    # IPython's own reading of the text: a literal \n is a line break.
                    o = {"output_type": "stream", "name": o["name"], "text": lines("".join(o["parts"]).replace("\\n", "\n"))}
                elif o["output_type"] == "execute_result":
                    o = {"output_type": "execute_result", "execution_count": n, "data": split(o["data"]), "metadata": {}}
                elif o["output_type"] == "display_data":
                    o = {"output_type": "display_data", "data": split(o["data"]), "metadata": {}}
                outputs.append(o)
            cells.append({"cell_type": "code", "execution_count": n, "id": uuid.uuid4().hex[:8], "metadata": {}, "outputs": outputs,
                          "source": lines(raws[n].rstrip("\n"))})
        nb = {"cells": cells, "nbformat": 4, "nbformat_minor": 5, "metadata": {
            "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
            "language_info": {"codemirror_mode": {"name": "ipython", "version": _ipy_sys.version_info[0]}, "file_extension": ".py",
                              "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python", "pygments_lexer": "ipython3",
                              "version": platform.python_version()}}}
        with open(_ipy_os.path.expanduser(args.filename), "w", encoding="utf-8") as f:
            f.write(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
        return None

    def _line_pastebin(self, line):
        """Uploads code to dpaste.com and returns its URL: %pastebin [-d
        DESCRIPTION] [-e DAYS] RANGE|FILE|NAME (history ranges, a file, or a
        string or macro of the namespace); -e is the days it is kept (7)."""
        import urllib.parse
        import urllib.request

        opts, rest = self._options(line, "de", "de")
        try:
            code = self._user_code(" ".join(rest))
        except (ValueError, TypeError) as e:
            print(e.args[0])
            return None
        try:
            days = int(opts.get("e", 7))
        except ValueError as e:
            print(e.args[0].capitalize())
            return None
        if not 1 <= days <= 365:
            print("Expiry days should be in range of 1 to 365")
            return None
        data = urllib.parse.urlencode({"title": opts.get("d", "Pasted from IPython"), "syntax": "python", "content": code,
                                       "expiry_days": days}).encode("utf-8")
        req = urllib.request.Request("https://dpaste.com/api/v2/", headers={"User-Agent": "IPython v" + _IPY_VERSION})
        with urllib.request.urlopen(req, data) as resp:
            return resp.headers.get("Location")

    def _line_edit(self, line):
        """Opens a file in the front end's editor: a kernel starts no
        editor, it sends the file and line as an edit_magic payload.
        %edit FILE, %edit NAME (where the object is defined; a string's
        text), %edit RANGE (those inputs), alone an empty file; -n LINE."""
        import inspect
        import pathlib
        import tempfile
        import warnings

        opts, rest = self._options(line, "prn", "n")
        args = " ".join(rest)
        lineno = opts.get("n")

        def py_file(name):
            for path in (name, name + ".py"):
                if _ipy_os.path.isfile(_ipy_os.path.expanduser(path)):
                    return _ipy_os.path.expanduser(path)
            return name if name.endswith(".py") else None

        def temp_file(text):
            d = tempfile.mkdtemp(prefix="ipython_edit_")
            fd, path = tempfile.mkstemp(".py", "ipython_edit_", d)
            with _ipy_os.fdopen(fd, "w") as f:
                f.write(text)
            print("IPython will make a temporary file named:", path)
            return path

        def cell_file(name, text):
            d = _ipy_os.path.join(tempfile.gettempdir(), "ipykernel_%d" % _ipy_os.getpid())
            _ipy_os.makedirs(d, exist_ok=True)
            path = _ipy_os.path.join(d, name.strip("<>") + ".py")
            with open(path, "w") as f:
                f.write(text)
            return path

        filename = py_file(args) if args else None
        if filename is None:
            data = self._input_lines(args, "r" in opts) if args else ""
            if args and not data:
                try:
                    data = eval(args, self.user_ns)
                except (NameError, SyntaxError):
                    filename = py_file(args)
                    if filename is None:
                        warnings.warn("Argument given (%s) can't be found as a variable or as a filename." % args)
                    data = None
            if isinstance(data, Macro):
                print("Macro editing not yet implemented in 2-process model.")
                return None
            if isinstance(data, str):
                filename = temp_file(data)
            elif data is not None:
                try:
                    filename = inspect.getsourcefile(data) or inspect.getfile(data)
                    if lineno is None:
                        lineno = inspect.getsourcelines(data)[1]
                    if not _ipy_os.path.isfile(filename) and filename.startswith("<cell-"):
                        # Defined in a cell: ipykernel keeps each cell in a
                        # file of its own, which the payload names.
                        import linecache

                        filename = cell_file(filename, "".join(linecache.getlines(filename)))
                except (TypeError, OSError):
                    filename = py_file(args)
        filename = str(pathlib.Path(filename).resolve())
        _publish({"text/plain": filename}, {"payload": {"source": "edit_magic", "filename": filename, "line_number": lineno}}, None, False)
        return None

    def _line_ed(self, line):
        """Alias for `%edit`."""
        return self._line_edit(line)

    # -- %code_wrap, %sc ------------------------------------------------------

    def _code_wrap(self, line, cell):
        """A template every later cell runs in: __code__ is the cell's code,
        __ret__ the value of its last expression; names starting with ___
        are the template's own. %%code_wrap NAME sets one, %code_wrap
        --remove NAME drops it, --list names them, --list-all shows them."""
        import ast
        import textwrap

        p = _magic_parser("%code_wrap")
        p.add_argument("name", type=str, default="default", nargs="?")
        p.add_argument("--remove", action="store_true")
        p.add_argument("--list", action="store_true")
        p.add_argument("--list-all", action="store_true")
        args = p.parse_args(_arg_split(line))
        wraps = _ipy_state["code_wraps"]
        if args.list:
            for name in wraps:
                print(name)
            return None
        if args.list_all:
            for name, template in wraps.items():
                print(name, ":")
                print(textwrap.indent(ast.unparse(template), "    "))
            print()
            return None
        wraps.pop(args.name, None)
        if cell is not None and not args.remove:
            wraps[args.name] = ast.parse(cell)
        return None

    def _line_code_wrap(self, line):
        """See %%code_wrap."""
        return self._code_wrap(line, None)

    def _cell_code_wrap(self, line, cell):
        """Sets a template later cells run in (see %code_wrap)."""
        return self._code_wrap(line, cell)

    def _line_sc(self, line):
        """Runs a shell command and keeps its output: %sc [-l] [-v]
        NAME=COMMAND binds NAME to the output (-l: its lines, as a list;
        -v: prints it too). Deprecated: NAME = !COMMAND does the same."""
        import pprint

        opts, rest = self._options(line, "lv")
        try:
            name = " ".join(rest).split("=", 1)[0].strip()
            cmd = line.split("=", 1)[1]
        except IndexError:
            name, cmd = "", ""
        out = self.getoutput(cmd, split="l" in opts)
        if not isinstance(out, SList):
            out = LSString(out)
        if "v" in opts:
            print("%s ==\n%s" % (name, pprint.pformat(out)))
        if name:
            self.user_ns[name] = out
            return None
        return out


class LSString(str):
    """A command's output as one string, as IPython's getoutput returns it
    unsplit: .l its lines, .n itself, .s its lines joined by spaces."""

    @property
    def l(self):  # noqa: E743
        return self.split("\n")

    @property
    def n(self):
        return str(self)

    @property
    def s(self):
        return self.replace("\n", " ")

    p = property(lambda self: [_ipy_os.path.expanduser(x) for x in self.split("\n")])


def _ipy_run_with(runner, cell):
    """A cell's coroutine (cell() makes it) run by the runner %autoawait
    set: trio's or curio's run (imported first, as IPython's runners import
    them), or a callable given."""
    if runner == "trio":
        import trio

        async def main():
            return await cell()

        return trio.run(main)
    if runner == "curio":
        import curio

        return curio.run(cell())
    if runner == "sync":
        # No loop: a coroutine that finishes without waiting runs, one
        # that waits cannot.
        coro = cell()
        try:
            coro.send(None)
        except StopIteration as done:
            return done.value
        coro.close()
        raise RuntimeError("'run_cell_async' needs a real async loop")
    return runner(cell())


def _ipy_wrapped(tree):
    """The cell's tree inside each %code_wrap template, in the order they
    were set: the template's __code__ statement is the cell's body, its
    __ret__ the cell's last value (None when the cell ends in a statement)."""
    import ast
    import copy

    wraps = _ipy_state["code_wraps"]
    if not wraps or not tree.body:
        return tree

    class Mangle(ast.NodeTransformer):
        # A template's own names (___x) cannot meet the cell's.
        def visit_Name(self, node):
            if node.id.startswith("___"):
                node.id = "mangle-" + node.id
            return node

        def visit_FunctionDef(self, node):
            if node.name.startswith("___"):
                node.name = "mangle-" + node.name
            for a in node.args.args:
                if a.arg.startswith("___"):
                    a.arg = "mangle-" + a.arg
            return self.generic_visit(node)

    class Fill(ast.NodeTransformer):
        def __init__(self, slots):
            self.slots = slots

        def visit_Expr(self, node):
            if isinstance(node.value, ast.Name) and node.value.id in self.slots:
                return copy.deepcopy(self.slots[node.value.id])
            return self.generic_visit(node)

    for template in list(wraps.values()):
        body = list(tree.body)
        last = body[-1]
        if isinstance(last, ast.Expr):
            body[-1] = ast.Assign([ast.Name("ret-tmp", ctx=ast.Store())], last.value)
            ret = ast.Expr(ast.Name("ret-tmp", ctx=ast.Load()))
        else:
            ret = ast.parse("None").body[0]
        for node in body + [ret]:
            ast.fix_missing_locations(node)
        filled = Fill({"__code__": body, "__ret__": ret}).visit(Mangle().visit(copy.deepcopy(template)))
        tree = ast.fix_missing_locations(filled)
    return tree


# %%! is %%sx, under a name no def can have (container.CellMagics reads
# these lines).
setattr(_IPyShell, "_cell_!", _IPyShell._cell_sx)


def _ipy_signature(obj, name):
    """obj's call signature as IPython 9's help shows it, or None: on one
    line, or one parameter a line (the markers / and * too) when the name
    and its parameters, each counted with a comma and a space, pass 75
    characters."""
    import inspect

    if not callable(obj):
        return None
    try:
        sig = inspect.signature(obj)
    except Exception:
        return None
    P = inspect.Parameter
    parts, last = [], None
    for p in sig.parameters.values():
        if last == P.POSITIONAL_ONLY and p.kind != last:
            parts.append("/")
        if p.kind == P.KEYWORD_ONLY and last not in (P.VAR_POSITIONAL, P.KEYWORD_ONLY):
            parts.append("*")
        parts.append(str(p))
        last = p.kind
    if last == P.POSITIONAL_ONLY:
        parts.append("/")
    if len(name) + sum(len(p) + 2 for p in parts) > 75:
        text = "%s(\n%s)" % (name, "".join("    %s,\n" % p for p in parts))
    else:
        text = "%s(%s)" % (name, ", ".join(parts))
    if sig.return_annotation is not P.empty:
        text += " -> " + inspect.formatannotation(sig.return_annotation)
    return text


def _ipy_unwrapped(obj):
    """What a decorator wrapped (__wrapped__, followed at most 100 times,
    as IPython does: some objects make any attribute up)."""
    start = obj
    for _ in range(101):
        try:
            obj = obj.__wrapped__
        except Exception:
            return obj
    return start


def _ipy_doc(obj):
    """An object's docstring as IPython's help reads it: its getdoc()
    method's when it has one, else inspect.getdoc's."""
    import inspect

    try:
        ds = obj.getdoc()
    except Exception:
        pass
    else:
        if isinstance(ds, str):
            return inspect.cleandoc(ds)
    try:
        return inspect.getdoc(obj)
    except Exception:
        return None


def _ipy_help_file(obj):
    """The file obj is defined in (an instance's is its class's), as
    inspect finds it; None when there is none."""
    import inspect

    obj = _ipy_unwrapped(obj)
    try:
        return inspect.getabsfile(obj)
    except TypeError:
        try:
            return inspect.getabsfile(obj.__class__)
        except Exception:
            return None
    except Exception:
        return None


def _ipy_help_file_line(f):
    """File f as help's File line shows it, home as ~; None for a cell's
    (IPython names the kernel's own file of the cell, which this shell has
    not)."""
    import re

    if f.endswith("<string>"):
        return "Dynamically generated function. No source code available."
    if re.fullmatch(r"<cell-\d+>", _ipy_os.path.basename(f)):
        return None
    home = _ipy_os.path.expanduser("~")
    return "~" + f[len(home):] if home not in ("", "/") and f.startswith(home) else f


def _ipy_help_source(obj, name):
    """obj's source for obj??: a property's accessors', an instance's
    class's; None when there is none."""
    import inspect
    import textwrap

    if isinstance(obj, property):
        out = []
        for a in ("fget", "fset", "fdel"):
            fn = getattr(obj, a)
            if fn is None:
                continue
            out.append("# " + (name + "." if name else "") + a)
            if inspect.isfunction(fn):
                src = _ipy_help_source(fn, "")
                if src:
                    out.append(textwrap.dedent(src))
            else:
                out.append("%s%s = %r\n" % (name + "." if name else "", a, fn))
        return "\n".join(out) or None
    obj = _ipy_unwrapped(obj)
    try:
        return inspect.getsource(obj)
    except TypeError:
        try:
            return inspect.getsource(obj.__class__)
        except (OSError, TypeError):
            return None
    except OSError:
        return None


def _ipy_help_text(obj, name, space, magic, detail):
    """The text obj? (obj?? with detail) shows, as IPython 9's inspector
    lays out its fields for a magic, a class or function, or any other
    object."""
    import ast
    import inspect
    import textwrap

    info = {}
    ds = _ipy_doc(obj)
    if ds is None:
        ds = "<no docstring>"
    info["type"] = "Magic function" if magic else type(obj).__name__
    try:
        text = str(obj)
        if not detail and len(text) > 200:
            text = text[:97] + " <...> " + text[-97:]
            text = ("\n" + " " * len("string_form")).join(q.strip() for q in text.split("\n"))
        info["string"] = text
    except Exception:
        pass
    try:
        info["length"] = str(len(obj))
    except Exception:
        pass
    f = _ipy_help_file(obj)
    # This shell's magics are not in IPython's files.
    info["file"] = _ipy_help_file_line(f) if f is not None and not magic else None
    if detail:
        try:
            # No source for an object without a file, or a binary one's.
            if isinstance(obj, property) or f is not None and not f.endswith((".so", ".dll", ".pyd")):
                src = _ipy_help_source(obj, name)
                info["source"] = src.rstrip() if src is not None else None
        except Exception:
            pass
    try:
        (node,) = ast.parse(textwrap.dedent(info.get("source"))).body
        shown = ast.get_docstring(node) == ds
    except Exception:
        shown = False
    if not shown:
        info["doc"] = ds
    object_init = object.__init__.__doc__
    if inspect.isclass(obj):
        info["init_def"] = _ipy_signature(obj, name)
        init = getattr(obj, "__init__", None)
        if init is not None:
            if info["init_def"] is None:
                info["init_def"] = _ipy_signature(init, name)
            init_ds = _ipy_doc(init)
            info["init_doc"] = None if init_ds == object_init else init_ds
        subs = [c.__name__ for c in type.__subclasses__(obj)]
        info["subclasses"] = ", ".join(subs if len(subs) < 10 else subs[:10] + ["..."])
    else:
        info["def"] = _ipy_signature(obj, name)
        if hasattr(obj, "__class__"):
            class_ds = _ipy_doc(obj.__class__)
            plain = {inspect.getdoc(t) for t in (types.ModuleType, types.MethodType, types.FunctionType, property)}
            if class_ds and class_ds not in plain and ds != class_ds:
                info["class_doc"] = class_ds
        init = getattr(obj, "__init__", None)
        init_ds = _ipy_doc(init) if init is not None else None
        info["init_doc"] = None if init_ds == object_init else init_ds
        simple = inspect.isfunction(obj) or inspect.ismethod(obj) or isinstance(obj, (type(all), type(str.upper)))
        if not simple and hasattr(obj, "__call__"):
            call_def = _ipy_signature(obj.__call__, name)
            if call_def != info["def"]:
                info["call_def"] = call_def
            call_ds = _ipy_doc(obj.__call__)
            info["call_doc"] = None if call_ds == _ipy_types_call_doc() else call_ds
    fields = []

    def add(head, key):
        if info.get(key) is not None:
            fields.append((head, info[key]))

    if magic:
        add("Source", "source") if detail and info.get("source") else add("Docstring", "doc")
        add("File", "file")
    elif inspect.isclass(obj) or inspect.isfunction(obj) or inspect.ismethod(obj) or isinstance(obj, (type(all), type(str.upper))):
        add("Signature", "def")
        add("Init signature", "init_def")
        add("Docstring", "doc")
        add("Source", "source") if detail and info.get("source") else add("Init docstring", "init_doc")
        add("File", "file")
        add("Type", "type")
        add("Subclasses", "subclasses")
    else:
        add("Signature", "def")
        add("Call signature", "call_def")
        add("Type", "type")
        add("String form", "string")
        if space != "Interactive":
            info["space"] = space
            add("Namespace", "space")
        add("Length", "length")
        add("File", "file")
        add("Source", "source") if detail and info.get("source") else add("Docstring", "doc")
        add("Class docstring", "class_doc")
        add("Init docstring", "init_doc")
        add("Call docstring", "call_doc")
    width = max(len(h) for h, _ in fields)
    lines = []
    for head, body in fields:
        body = body.strip("\n")
        lines.append("%s:%s%s%s" % (head, " " * (width - len(head)), "\n" if "\n" in body else " ", body))
    return "\n".join(lines)


def _ipy_type_names():
    """%psearch's type names: the types module's *Type names, lowercase,
    without Type."""
    return {n[:-4].lower(): getattr(types, n) for n in dir(types) if n.endswith("Type")}


def _ipy_search(ns, pattern, type_name, ignore_case, show_all):
    """The names in ns (a dict) matching a %psearch pattern: its first
    dotted part matches names, the rest their attributes' names; names
    with one leading _ only with show_all; the last part's objects of
    type type_name ("all": any)."""
    import re

    head, _, rest = pattern.partition(".")
    reg = re.compile(head.replace("*", ".*").replace("?", ".") + "$", re.IGNORECASE if ignore_case else 0)
    want = _ipy_type_names().get(type_name) if type_name != "all" else object
    out = {}
    for key, obj in ns.items():
        if not reg.match(key) or not (show_all or key.startswith("__") or not key.startswith("_")):
            continue
        if not rest:
            if want is not None and isinstance(obj, want):
                out[key] = obj
            continue
        attrs = {}
        try:
            names = set(dir(obj))
        except Exception:
            names = set()
        if hasattr(obj, "__class__"):
            names |= set(dir(obj.__class__))
        for a in sorted(n for n in names if isinstance(n, str)):
            try:
                attrs[a] = getattr(obj, a)
            except AttributeError:
                pass
        for k, v in _ipy_search(attrs, rest, type_name, ignore_case, show_all).items():
            out["%s.%s" % (key, k)] = v
    return out


def _ipy_types_call_doc():
    """The docstring every function's __call__ has, which IPython leaves out."""
    return types.FunctionType.__call__.__doc__


class TimeitResult:
    """%timeit -o's result; its str is the line %timeit prints."""

    def __init__(self, loops, repeat, best, worst, all_runs, precision):
        self.loops, self.repeat, self.best, self.worst = loops, repeat, best, worst
        self.all_runs, self._precision = all_runs, precision
        self.timings = [dt / loops for dt in all_runs]

    @property
    def average(self):
        return sum(self.timings) / len(self.timings)

    @property
    def stdev(self):
        import math

        mean = self.average
        return (math.fsum([(x - mean) ** 2 for x in self.timings]) / len(self.timings)) ** 0.5

    def __str__(self):
        pm = "+-"
        enc = getattr(_ipy_sys.stdout, "encoding", None) or "utf-8"
        try:
            "\xb1".encode(enc)
            pm = "\xb1"
        except Exception:
            pass
        return "{mean} {pm} {std} per loop (mean {pm} std. dev. of {runs} run{run_plural}, {loops:,} loop{loop_plural} each)".format(
            pm=pm, runs=self.repeat, loops=self.loops, loop_plural="" if self.loops == 1 else "s",
            run_plural="" if self.repeat == 1 else "s", mean=_format_time(self.average, self._precision),
            std=_format_time(self.stdev, self._precision))

    def _repr_pretty_(self, p, cycle):
        p.text("<TimeitResult : " + str(self) + ">")

    def __repr__(self):
        return "<TimeitResult : " + str(self) + ">"


# -- IPython's public surface: version, display_* functions, more display
# objects, the shell's display formatter ------------------------------------

_IPY_VERSION_INFO = (9, 18, 1, "")
_IPY_VERSION = "%d.%d.%d" % _IPY_VERSION_INFO[:3]


def _display_mimetype(mimetype, objs, raw=False, metadata=None):
    """display_png() and the like: only the one MIME type of each object,
    or (raw=True) the objects are that type's data."""
    if metadata:
        metadata = {mimetype: metadata}
    if raw:
        objs = [{mimetype: o} for o in objs]
    display(*objs, raw=raw, metadata=metadata, include=[mimetype])


def _display_function(mimetype, name):
    def f(*objs, **kwargs):
        _display_mimetype(mimetype, objs, kwargs.get("raw", False), kwargs.get("metadata"))

    f.__name__ = f.__qualname__ = name
    f.__module__ = "IPython.core.display"
    f.__doc__ = "Displays the %s representation of the objects (raw=True: the objects are that data)." % mimetype
    return f


_IPY_DISPLAY_FUNCTIONS = {
    "display_pretty": "text/plain", "display_html": "text/html", "display_markdown": "text/markdown",
    "display_svg": "image/svg+xml", "display_png": "image/png", "display_jpeg": "image/jpeg",
    "display_webp": "image/webp", "display_latex": "text/latex", "display_json": "application/json",
    "display_javascript": "application/javascript", "display_pdf": "application/pdf",
}
for _n, _m in _IPY_DISPLAY_FUNCTIONS.items():
    globals()[_n] = _display_function(_m, _n)
del _n, _m


class Math(TextDisplayObject):
    """LaTeX math, shown in display style."""

    _mime = "text/latex"

    def _repr_mimebundle_(self, include=None, exclude=None):
        if self.data is None:
            return {}
        s = "$\\displaystyle %s$" % str(self.data).strip("$")
        return ({self._mime: s}, {self._mime: dict(self.metadata)}) if self.metadata else {self._mime: s}


class ProgressBar(DisplayObject):
    """A progress bar that updates its own display: iterate over it, or
    set its progress."""

    def __init__(self, total):
        self.total, self._progress = total, 0
        self.html_width, self.text_width = "60ex", 60
        self.data, self.url, self.filename, self.metadata = None, None, None, {}
        self._display_id = _ipy_os.urandom(8).hex()

    def __repr__(self):
        done = self._progress / self.total if self.total else 0
        bar = "=" * int(done * self.text_width)
        return "[%s%s] %s/%s" % (bar, " " * (self.text_width - len(bar)), self._progress, self.total)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": "<progress style='width:%s' max='%s' value='%s'></progress>" % (self.html_width, self.total, self._progress)}

    def display(self):
        display(self, display_id=self._display_id)

    def update(self):
        display(self, display_id=self._display_id, update=True)

    @property
    def progress(self):
        return self._progress

    @progress.setter
    def progress(self, value):
        self._progress = value
        self.update()

    def __iter__(self):
        self.display()
        self._progress = -1
        return self

    def __next__(self):
        self.progress += 1
        if self._progress < self.total:
            return self._progress
        raise StopIteration()


def _ipy_fetch(url):
    """A URL's content, as a display object loads it (offline: urllib's
    URLError, as IPython raises it)."""
    import urllib.request

    with urllib.request.urlopen(url) as r:
        return r.read()


class IFrame:
    """An <iframe> of a page (text/html)."""

    _iframe = ('\n        <iframe\n            width="{width}"\n            height="{height}"\n            src="{src}{params}"\n'
               '            frameborder="0"\n            allowfullscreen\n            referrerpolicy="strict-origin-when-cross-origin"\n'
               '            {extras}\n        ></iframe>\n        ')

    def __init__(self, src, width, height, extras=None, **kwargs):
        self.src, self.width, self.height = src, width, height
        self.extras = list(extras or [])
        self.params = kwargs

    def _params(self):
        if not self.params:
            return ""
        import urllib.parse

        return "?" + urllib.parse.urlencode(self.params)

    def _repr_html_(self):
        import html

        return self._iframe.format(src=html.escape(str(self.src)), width=html.escape(str(self.width)), height=html.escape(str(self.height)),
                                   params=self._params(), extras=" ".join(self.extras))


class YouTubeVideo(IFrame):
    """A YouTube video's player in an <iframe>."""

    def __init__(self, id, width=400, height=300, allow_autoplay=False, **kwargs):
        self.id = id
        src = "https://www.youtube.com/embed/{0}".format(id)
        if allow_autoplay:
            kwargs.update(autoplay=1)
            extras = ['allow="autoplay"']
        else:
            extras = []
        super().__init__(src, width, height, extras, **kwargs)

    def _repr_jpeg_(self):
        return _ipy_fetch("https://img.youtube.com/vi/{id}/hqdefault.jpg".format(id=self.id))


class VimeoVideo(IFrame):
    def __init__(self, id, width=400, height=300, **kwargs):
        super().__init__("https://player.vimeo.com/video/{0}".format(id), width, height, **kwargs)


class FileLink:
    """A link to a file below the working directory (text/html), its
    absolute path as text/plain."""

    _link = "<a href='%s' target='_blank'>%s</a>"

    def __init__(self, path, url_prefix="", result_html_prefix="", result_html_suffix="<br>"):
        if _ipy_os.path.isdir(path):
            raise ValueError("Cannot display a directory using FileLink. Use FileLinks to display '%s'." % path)
        self.path = _ipy_os.fsdecode(path)
        self.url_prefix, self.result_html_prefix, self.result_html_suffix = url_prefix, result_html_prefix, result_html_suffix

    def _format_path(self):
        import html

        return "".join([self.result_html_prefix, self._link % (self.url_prefix + html.escape(self.path), html.escape(self.path, quote=False)),
                        self.result_html_suffix])

    def _repr_html_(self):
        if not _ipy_os.path.exists(self.path):
            return ("Path (<tt>%s</tt>) doesn't exist. It may still be in the process of being generated, "
                    "or you may have the incorrect path." % self.path)
        return self._format_path()

    def __repr__(self):
        return _ipy_os.path.abspath(self.path)


class FileLinks(FileLink):
    """Links to the files of a directory and (recursive) its subdirectories:
    text/html, and their names as text/plain."""

    def __init__(self, path, url_prefix="", included_suffixes=None, result_html_prefix="", result_html_suffix="<br>",
                 notebook_display_formatter=None, terminal_display_formatter=None, recursive=True):
        if _ipy_os.path.isfile(path):
            raise ValueError("Cannot display a file using FileLinks. Use FileLink to display '%s'." % path)
        self.included_suffixes = included_suffixes
        self.path = _ipy_os.fsdecode(path).rstrip("/")
        self.url_prefix, self.result_html_prefix, self.result_html_suffix = url_prefix, result_html_prefix, result_html_suffix
        self.notebook_display_formatter = notebook_display_formatter or self._lines(True)
        self.terminal_display_formatter = terminal_display_formatter or self._lines(False)
        self.recursive = recursive

    def _lines(self, html_out):
        """A formatter f(dirname, fnames, included_suffixes): a folder's
        line, then one for each of its files shown."""
        import html

        esc = html.escape if html_out else str
        pre, post = (self.result_html_prefix, self.result_html_suffix) if html_out else ("", "")

        def f(dirname, fnames, included_suffixes=None):
            shown = [n for n in fnames if _ipy_os.path.isfile(_ipy_os.path.join(dirname, n))
                     and (included_suffixes is None or _ipy_os.path.splitext(n)[1] in included_suffixes)]
            if not shown:
                return []
            out = [pre + esc(dirname) + "/" + post]
            for n in shown:
                if html_out:
                    fp = self.url_prefix + "%s/%s" % (esc(dirname), esc(n))
                    out.append(pre + "&nbsp;&nbsp;" + self._link % (fp.replace("\\", "/") if _ipy_os.sep == "\\" else fp, esc(n)) + post)
                else:
                    out.append("  " + n)
            return out

        return f

    def _walked(self):
        walked = list(_ipy_os.walk(self.path)) if self.recursive else [next(_ipy_os.walk(self.path))]
        walked.sort()
        return walked

    def _format_path(self):
        lines = []
        for dirname, _, fnames in self._walked():
            lines += self.notebook_display_formatter(dirname, fnames, self.included_suffixes)
        return "\n".join(lines)

    def __repr__(self):
        lines = []
        for dirname, _, fnames in self._walked():
            lines += self.terminal_display_formatter(dirname, fnames, self.included_suffixes)
        return "\n".join(lines)


class Audio(DisplayObject):
    """An <audio> element: a file's, a URL's, or samples' sound (embedded
    as a data URL), or a link to a URL (embed=False)."""

    _binary = True

    def __init__(self, data=None, filename=None, url=None, embed=None, rate=None, autoplay=False, normalize=True, *, element_id=None):
        if filename is None and url is None and data is None:
            raise ValueError("No audio data found. Expecting filename, url, or data.")
        if embed is False and url is None:
            raise ValueError("No url found. Expecting url when embed=False")
        self.embed = not (url is not None and embed is not True)
        self.autoplay, self.element_id = autoplay, element_id
        super().__init__(data=data, url=url, filename=filename)
        import mimetypes

        if self.filename is not None:
            self.mimetype = mimetypes.guess_type(self.filename)[0]
        elif self.url is not None:
            self.mimetype = mimetypes.guess_type(self.url)[0]
        else:
            self.mimetype = "audio/wav"
        if self.data is not None and not isinstance(self.data, bytes):
            if rate is None:
                raise ValueError("rate must be specified when data is a numpy array or list of audio samples.")
            self.data = Audio._make_wav(data, rate, normalize)

    @staticmethod
    def _make_wav(data, rate, normalize):
        """16-bit PCM WAV bytes of the samples (rows are channels)."""
        import io
        import wave

        try:
            import numpy as np
        except ImportError:
            np = None
        if np is not None:
            a = np.array(data, dtype=float)
            if a.ndim not in (1, 2):
                raise ValueError("Array audio input must be a 1D or 2D array")
            nchan = 1 if a.ndim == 1 else a.shape[0]
            if a.ndim == 2:
                a = a.T.ravel()
            peak = float(np.max(np.abs(a)))
            frames = (a / Audio._scale(peak, normalize) * 32767).astype("<h").tobytes()
        else:
            import array

            samples = array.array("f", data)
            peak = float(max(abs(x) for x in samples))
            scale = Audio._scale(peak, normalize)
            out = array.array("h", [int(x / scale * 32767) for x in samples])
            if _ipy_sys.byteorder == "big":
                out.byteswap()
            nchan, frames = 1, out.tobytes()
        buf = io.BytesIO()
        w = wave.open(buf, mode="wb")
        w.setnchannels(nchan)
        w.setframerate(rate)
        w.setsampwidth(2)
        w.setcomptype("NONE", "NONE")
        w.writeframes(frames)
        value = buf.getvalue()
        w.close()
        return value

    @staticmethod
    def _scale(peak, normalize):
        if not normalize and peak > 1:
            raise ValueError("Audio data must be between -1 and 1 when normalize=False.")
        return peak if normalize else 1

    def _src(self):
        import html

        if self.embed and self.data is not None:
            import base64

            return "data:%s;base64,%s" % (self.mimetype, base64.b64encode(self.data).decode("ascii"))
        if self.url is not None:
            return html.escape(self.url)
        return ""

    def _repr_mimebundle_(self, include=None, exclude=None):
        import html

        eid = 'id="%s"' % html.escape(self.element_id) if self.element_id else ""
        play = 'autoplay="autoplay"' if self.autoplay else ""
        return {"text/html": ("\n                <audio %s controls=\"controls\" %s>\n                    <source src=\"%s\" type=\"%s\" />\n"
                              "                    Your browser does not support the audio element.\n                </audio>\n              ")
                % (eid, play, self._src(), self.mimetype)}


class Video(DisplayObject):
    """A <video> element: a link to a URL or file, or (embed=True) its
    data in a data URL."""

    def __init__(self, data=None, url=None, filename=None, embed=False, mimetype=None, width=None, height=None, html_attributes="controls"):
        if url is None and isinstance(data, str) and data.startswith(("http:", "https:")):
            url, data = data, None
        elif data is not None and _ipy_os.path.exists(str(data)):
            filename, data = str(data), None
        if data and not embed:
            raise ValueError("To embed videos, you must pass embed=True (this may make your notebook files huge)\nConsider passing Video(url='...')")
        self.mimetype, self.embed, self.width, self.height, self.html_attributes = mimetype, embed, width, height, html_attributes
        self.data, self.url, self.filename, self.metadata = data, url, filename, {}

    def _repr_mimebundle_(self, include=None, exclude=None):
        size = (' width="%d"' % self.width if self.width else "", ' height="%d"' % self.height if self.height else "")
        if not self.embed:
            import html

            src = self.url if self.url is not None else self.filename
            return {"text/html": '<video src="%s" %s %s %s>\n      Your browser does not support the <code>video</code> element.\n    </video>'
                    % (html.escape(src or ""), self.html_attributes, size[0], size[1])}
        mimetype, video = self.mimetype, self.data
        if self.filename is not None:
            if not mimetype:
                import mimetypes

                mimetype = mimetypes.guess_type(self.filename)[0]
            with open(self.filename, "rb") as f:
                video = f.read()
        if not isinstance(video, str):
            import base64

            video = base64.b64encode(video).decode("ascii")
        return {"text/html": '<video %s %s %s>\n <source src="data:%s;base64,%s" type="%s">\n Your browser does not support the video tag.\n </video>'
                % (self.html_attributes, size[0], size[1], mimetype, video, mimetype)}


class GeoJSON(JSON):
    """GeoJSON data, shown by front ends that have a map view."""

    def _ipython_display_(self):
        display({"application/geo+json": self.data, "text/plain": "<IPython.display.GeoJSON object>"},
                metadata={"application/geo+json": self.metadata}, raw=True)


def _ipy_displays_itself(obj):
    """As IPython's display formatter: an object with _ipython_display_
    shows itself (and no bundle of it is made)."""
    if isinstance(obj, type):
        return False
    try:
        method = getattr(obj, "_ipython_display_", None)
    except Exception:
        return False
    if not callable(method):
        return False
    method()
    return True


def _ipy_type_key(cls):
    """A class's (module, name), as for_type_by_name names it."""
    return (getattr(cls, "__module__", None), getattr(cls, "__name__", None))


class _IPyFormatter:
    """One MIME type's formatter of IPython's display formatter: a printer
    registered for an object's class (for_type, or for_type_by_name by
    module and name) comes before the object's _repr_*_ method."""

    format_type = ""
    print_method = ""

    def __init__(self):
        self.enabled = True
        self.type_printers = {}
        self.deferred_printers = {}
        self.singleton_printers = {}

    def __call__(self, obj):
        if not self.enabled:
            return None
        try:
            printer = self.lookup(obj)
        except KeyError:
            pass
        else:
            return printer(obj)
        if isinstance(obj, type):
            return None
        method = getattr(obj, self.print_method, None)
        return method() if callable(method) else None

    def __contains__(self, typ):
        try:
            self.lookup_by_type(typ)
        except KeyError:
            return False
        return True

    def lookup(self, obj):
        if id(obj) in self.singleton_printers:
            return self.singleton_printers[id(obj)]
        return self.lookup_by_type(getattr(obj, "__class__", None) or type(obj))

    def _named(self, key):
        """The class with a printer whose (module, name) is key, or None."""
        return next((cls for cls in self.type_printers if _ipy_type_key(cls) == key), None)

    def lookup_by_type(self, typ):
        if isinstance(typ, str):
            key = tuple(typ.rsplit(".", 1))
            if key in self.deferred_printers:
                return self.deferred_printers[key]
            cls = self._named(key)
            if cls is not None:
                return self.type_printers[cls]
            raise KeyError("No registered printer for {0!r}".format(typ))
        for cls in getattr(typ, "__mro__", None) or (typ,):
            if cls in self.type_printers:
                return self.type_printers[cls]
            key = _ipy_type_key(cls)
            if key in self.deferred_printers:
                # As IPython: found once, it becomes a printer by class.
                self.type_printers[cls] = self.deferred_printers.pop(key)
                return self.type_printers[cls]
        raise KeyError("No registered printer for {0!r}".format(typ))

    def for_type(self, typ, func=None):
        """Add a format function for a given type; returns the one it had."""
        if isinstance(typ, str):
            module, name = typ.rsplit(".", 1)
            return self.for_type_by_name(module, name, func)
        try:
            old = self.lookup_by_type(typ)
        except KeyError:
            old = None
        if func is not None:
            self.type_printers[typ] = func
        return old

    def for_type_by_name(self, type_module, type_name, func=None):
        """Add a format function for a type named by its module and name;
        returns the one it had."""
        key = (type_module, type_name)
        try:
            old = self.lookup_by_type("%s.%s" % key)
        except KeyError:
            old = None
        if func is not None:
            self.deferred_printers[key] = func
        return old

    def pop(self, typ, default=KeyError):
        """Removes the printer of a type (or 'module.name'), returning it."""
        if isinstance(typ, str):
            key = tuple(typ.rsplit(".", 1))
            found = self.deferred_printers.pop(key, None)
            if found is None:
                for cls in [c for c in self.type_printers if _ipy_type_key(c) == key]:
                    found = self.type_printers.pop(cls)
        else:
            found = self.type_printers.pop(typ, None)
            if found is None:
                found = self.deferred_printers.pop(_ipy_type_key(typ), None)
        if found is None:
            if default is KeyError:
                raise KeyError("No registered value for {0!r}".format(typ))
            return default
        return found


class _IPyPlainFormatter(_IPyFormatter):
    """text/plain: the pretty printer, whose printers by class these are."""

    format_type = "text/plain"
    print_method = "_repr_pretty_"

    def __init__(self):
        super().__init__()
        self.type_printers = _PP_USER
        self.deferred_printers = _PP_USER_BY_NAME

    @property
    def pprint(self):
        return _ipy_state["pprint"]

    @pprint.setter
    def pprint(self, value):
        _ipy_state["pprint"] = bool(value)

    def lookup_by_type(self, typ):
        try:
            return super().lookup_by_type(typ)
        except KeyError:
            if isinstance(typ, str):
                raise
            for cls in getattr(typ, "__mro__", None) or (typ,):
                f = _pp_printers().get(cls)
                if f is not None:
                    return lambda obj, p, cycle, f=f: f(p, obj, cycle)
            raise

    def __call__(self, obj):
        if not self.enabled:
            return None
        return _pretty_text(obj, _ipy_state["precision"]) if _ipy_state["pprint"] else repr(obj)


_IPY_FORMATTER_TYPES = (
    ("PlainTextFormatter", "text/plain", "_repr_pretty_"),
    ("HTMLFormatter", "text/html", "_repr_html_"),
    ("MarkdownFormatter", "text/markdown", "_repr_markdown_"),
    ("SVGFormatter", "image/svg+xml", "_repr_svg_"),
    ("PNGFormatter", "image/png", "_repr_png_"),
    ("PDFFormatter", "application/pdf", "_repr_pdf_"),
    ("JPEGFormatter", "image/jpeg", "_repr_jpeg_"),
    ("LatexFormatter", "text/latex", "_repr_latex_"),
    ("JSONFormatter", "application/json", "_repr_json_"),
    ("JavascriptFormatter", "application/javascript", "_repr_javascript_"),
)


class DisplayFormatter:
    """get_ipython().display_formatter: the formatters by MIME type."""

    def __init__(self):
        self.formatters = {}
        for name, mt, meth in _IPY_FORMATTER_TYPES:
            base = _IPyPlainFormatter if mt == "text/plain" else _IPyFormatter
            cls = type(name, (base,), {"format_type": mt, "print_method": meth, "__module__": "IPython.core.formatters"})
            self.formatters[mt] = cls()

    @property
    def active_types(self):
        return [k for k, f in self.formatters.items() if f.enabled]

    @property
    def plain_text_only(self):
        return _ipy_state["plain_only"]

    def format_types(self):
        return list(self.formatters)

    def format(self, obj, include=None, exclude=None):
        """The object's MIME bundle and metadata, as display() shows it."""
        mime, meta = _display_bundle(obj, False)
        if include:
            mime = {k: v for k, v in mime.items() if k in include}
        if exclude:
            mime = {k: v for k, v in mime.items() if k not in exclude}
        return mime, meta


for _c in (_IPyFormatter, _IPyPlainFormatter, DisplayFormatter):
    _c.__module__ = "IPython.core.formatters"
    for _f in vars(_c).values():
        if callable(_f) and hasattr(_f, "__module__"):
            _f.__module__ = "IPython.core.formatters"  # help() names the module
del _c, _f
_ipy_display_formatter = None


def _ipy_formatter():
    global _ipy_display_formatter
    if _ipy_display_formatter is None:
        _ipy_display_formatter = DisplayFormatter()
    return _ipy_display_formatter


def _ipy_type_printer(value, mimetype):
    """The printer the shell's formatter for mimetype has for the value's
    class; False when that formatter is disabled; None without either."""
    if _ipy_display_formatter is None:
        return None
    f = _ipy_display_formatter.formatters.get(mimetype)
    if f is None:
        return None
    if not f.enabled:
        return False
    try:
        return f.lookup(value)
    except Exception:  # KeyError: no printer; any other: a broken one
        return None


_IPyShell.display_formatter = property(lambda self: _ipy_formatter())
_IPyShell.colors = property(lambda self: _ipy_state["colors"])


def print_figure(fig, fmt="png", bbox_inches="tight", base64=False, **kwargs):
    """A figure's image data: bytes (fmt='svg': text; base64=True: base64
    text), nothing for an empty figure."""
    import io

    if not fig.axes and not fig.lines:
        return None
    dpi = fig.dpi
    if fmt == "retina":
        dpi, fmt = dpi * 2, "png"
    kw = {"format": fmt, "facecolor": fig.get_facecolor(), "edgecolor": fig.get_edgecolor(), "dpi": dpi, "bbox_inches": bbox_inches}
    kw.update(kwargs)
    if fig.canvas is None:
        from matplotlib.backend_bases import FigureCanvasBase

        FigureCanvasBase(fig)
    buf = io.BytesIO()
    fig.canvas.print_figure(buf, **kw)
    data = buf.getvalue()
    if fmt == "svg":
        return data.decode("utf-8")
    if base64:
        import base64 as b64

        return b64.b64encode(data).decode("ascii")
    return data


def _ipy_lib_pretty(obj, verbose=False, max_width=79, newline="\n", max_seq_length=1000):
    """IPython.lib.pretty.pretty: the pretty text, without the printers
    the shell's formatter was given."""
    return _pretty_text(obj, None, user=False)


# The display objects above: IPython.display has them all, from
# IPython.core.display and IPython.lib.display.
_IPY_CORE_DISPLAY = (Math, ProgressBar, Video, GeoJSON)
_IPY_LIB_DISPLAY = (Audio, IFrame, YouTubeVideo, VimeoVideo, FileLink, FileLinks)
for _c in _IPY_CORE_DISPLAY:
    _c.__module__ = "IPython.core.display"
for _c in _IPY_LIB_DISPLAY:
    _c.__module__ = "IPython.lib.display"
print_figure.__module__ = "IPython.core.pylabtools"
_ipy_lib_pretty.__name__ = _ipy_lib_pretty.__qualname__ = "pretty"
_ipy_lib_pretty.__module__ = "IPython.lib.pretty"
del _c


class _BackgroundJobManager:
    """IPython.lib.backgroundjobs' manager: jobs (functions or expressions)
    in threads, their status by group, results and tracebacks."""

    def __init__(self):
        self._running, self._completed, self._dead, self.all = [], [], [], {}
        self._comp_report, self._dead_report = [], []
        self._current_job_id = 0

    def _groups(self):
        for job in list(self._running):
            if job.stat_code == job.stat_completed_c:
                self._running.remove(job)
                self._completed.append(job)
                self._comp_report.append(job)
            elif job.stat_code == job.stat_dead_c:
                self._running.remove(job)
                self._dead.append(job)
                self._dead_report.append(job)

    @property
    def running(self):
        self._groups()
        return self._running

    @property
    def completed(self):
        self._groups()
        return self._completed

    @property
    def dead(self):
        self._groups()
        return self._dead

    def new(self, func_or_exp, *args, **kwargs):
        if callable(func_or_exp):
            job = _ipy_jobs()[2](func_or_exp, *args, **kwargs.get("kw", {}))
        elif isinstance(func_or_exp, str):
            if not args:
                frame = _ipy_sys._getframe(1)
                glob, loc = frame.f_globals, frame.f_locals
            elif len(args) == 1:
                glob = loc = args[0]
            elif len(args) == 2:
                glob, loc = args
            else:
                raise ValueError("Expression jobs take at most 2 args (globals,locals)")
            job = _ipy_jobs()[1](func_or_exp, glob, loc)
        else:
            raise TypeError("invalid args for new job")
        if kwargs.get("daemon", False):
            job.daemon = True
        job.num = self._current_job_id
        self._current_job_id += 1
        self.running.append(job)
        self.all[job.num] = job
        job.start()
        return job

    def __getitem__(self, job_key):
        return self.all[job_key if isinstance(job_key, int) else job_key.num]

    def __call__(self):
        return self.status()

    def _report(self, group, name):
        if group:
            print("%s jobs:" % name)
            for job in group:
                print("{} : {}".format(job.num, job))
            print()
            return True
        return False

    def status(self, verbose=0):
        """Prints the running, completed and dead jobs."""
        self._groups()
        self._report(self._running, "Running")
        self._report(self._completed, "Completed")
        self._report(self._dead, "Dead")
        self._comp_report[:] = []
        self._dead_report[:] = []

    def remove(self, num):
        """Removes a finished job."""
        import logging

        job = self.all.get(num)
        if job is None:
            logging.error("Job #%s not found" % num)
        elif job.stat_code == job.stat_running_c:
            logging.error("Job #%s is still running, it can not be removed." % num)
        elif job.stat_code == job.stat_completed_c:
            self.completed.remove(job)
        elif job.stat_code == job.stat_dead_c:
            self.dead.remove(job)

    def flush(self):
        """Forgets the finished jobs."""
        for job in self.completed + self.dead:
            del self.all[job.num]
        flushed = False
        for group, name in ((self._completed, "Completed"), (self._dead, "Dead")):
            if group:
                print("Flushing {} {} job{}.".format(len(group), name, "" if len(group) == 1 else "s"))
                group[:] = []
                flushed = True
        if not flushed:
            print("No jobs to flush.")

    def result(self, num):
        import logging

        try:
            return self.all[num].result
        except KeyError:
            logging.error("Job #%s not found" % num)

    def traceback(self, job=None):
        """Prints the traceback of a dead job, or of each."""
        import logging

        if job is None:
            for dead in self.dead:
                print("Traceback for: %r" % dead)
                dead.traceback()
                print()
            return
        num = job if isinstance(job, int) else job.num
        if num in self.all:
            self.all[num].traceback()
        else:
            logging.error("Job #%s not found" % num)


def _ipy_job_base():
    import threading

    class BackgroundJobBase(threading.Thread):
        """A job's thread: its status, result and (dead) traceback."""

        stat_created, stat_created_c = "Created", 0
        stat_running, stat_running_c = "Running", 1
        stat_completed, stat_completed_c = "Completed", 2
        stat_dead, stat_dead_c = "Dead (Exception), call jobs.traceback() for details", -1

        def _init(self):
            self.num = None
            self.status, self.stat_code = self.stat_created, self.stat_created_c
            self.finished = False
            self.result = "<BackgroundJob has not completed>"
            self._tb = None
            threading.Thread.__init__(self)

        def __str__(self):
            return self.strform

        def __repr__(self):
            return "<BackgroundJob #%d: %s>" % (self.num, self.strform)

        def traceback(self):
            print(self._tb)

        def run(self):
            try:
                self.status, self.stat_code = self.stat_running, self.stat_running_c
                self.result = self.call()
            except Exception:
                import traceback

                self.status, self.stat_code = self.stat_dead, self.stat_dead_c
                self.finished = None
                self.result = "<BackgroundJob died, call jobs.traceback() for details>"
                self._tb = traceback.format_exc()
            else:
                self.status, self.stat_code = self.stat_completed, self.stat_completed_c
                self.finished = True

    class BackgroundJobExpr(BackgroundJobBase):
        """A job that evaluates an expression."""

        def __init__(self, expression, glob=None, loc=None):
            self.code = compile(expression, "<BackgroundJob compilation>", "eval")
            self.expression = self.strform = expression
            self.glob = {} if glob is None else glob
            self.loc = {} if loc is None else loc
            self._init()

        def call(self):
            return eval(self.code, self.glob, self.loc)

    class BackgroundJobFunc(BackgroundJobBase):
        """A job that calls a function."""

        def __init__(self, func, *args, **kwargs):
            if not callable(func):
                raise TypeError("first argument to BackgroundJobFunc must be callable")
            self.func, self.args, self.kwargs = func, args, kwargs
            self.strform = str(func)
            self._init()

        def call(self):
            return self.func(*self.args, **self.kwargs)

    return BackgroundJobBase, BackgroundJobExpr, BackgroundJobFunc


_ipy_job_classes = None


def _ipy_jobs():
    """The job thread classes (Base, Expr, Func), made on first use: no
    threading import as the kernel starts."""
    global _ipy_job_classes
    if _ipy_job_classes is None:
        _ipy_job_classes = _ipy_job_base()
        for c in _ipy_job_classes:
            c.__module__ = "IPython.lib.backgroundjobs"
    return _ipy_job_classes


def _ipy_jobs_attr(name):
    """The backgroundjobs module's thread classes, by name."""
    names = ("BackgroundJobBase", "BackgroundJobExpr", "BackgroundJobFunc")
    if name in names:
        return _ipy_jobs()[names.index(name)]
    raise AttributeError("module 'IPython.lib.backgroundjobs' has no attribute %r" % name)


_BackgroundJobManager.__name__ = _BackgroundJobManager.__qualname__ = "BackgroundJobManager"
_BackgroundJobManager.__module__ = "IPython.lib.backgroundjobs"


def _ipy_surface(mods):
    """Adds the public surface above to the modules _ipy_modules made."""
    ipy, disp, cdisp = mods["IPython"], mods["IPython.display"], mods["IPython.core.display"]
    ipy.__version__, ipy.version_info = _IPY_VERSION, _IPY_VERSION_INFO
    core = mods["IPython.core"]
    release = types.ModuleType("IPython.core.release")
    release.version, release.version_info = _IPY_VERSION, _IPY_VERSION_INFO
    release._version_major, release._version_minor, release._version_patch = _IPY_VERSION_INFO[:3]
    core.release = release
    for n in _IPY_DISPLAY_FUNCTIONS:
        setattr(disp, n, globals()[n])
        setattr(cdisp, n, globals()[n])
    for c in _IPY_CORE_DISPLAY:
        setattr(disp, c.__name__, c)
        setattr(cdisp, c.__name__, c)
    lib = types.ModuleType("IPython.lib")
    lib.__path__ = []
    ldisp = types.ModuleType("IPython.lib.display")
    for c in _IPY_LIB_DISPLAY + (Code,):
        setattr(ldisp, c.__name__, c)
        setattr(disp, c.__name__, c)
    lpretty = types.ModuleType("IPython.lib.pretty")
    lpretty.pretty = _ipy_lib_pretty
    jobs = types.ModuleType("IPython.lib.backgroundjobs")
    jobs.BackgroundJobManager, jobs.__getattr__ = _BackgroundJobManager, _ipy_jobs_attr
    lib.display, lib.pretty, lib.backgroundjobs = ldisp, lpretty, jobs
    ipy.lib = lib
    formatters = types.ModuleType("IPython.core.formatters")
    formatters.DisplayFormatter = DisplayFormatter
    for name, mt, _ in _IPY_FORMATTER_TYPES:
        setattr(formatters, name, type(_ipy_formatter().formatters[mt]))
    core.formatters = formatters
    mods["IPython.core.pylabtools"].print_figure = print_figure
    # sympy's init_printing tells a notebook from a terminal by these classes.
    ishell = types.ModuleType("IPython.core.interactiveshell")
    ishell.InteractiveShell = _IPyShell
    core.interactiveshell = ishell
    terminal = types.ModuleType("IPython.terminal")
    terminal.__path__ = []
    tshell = types.ModuleType("IPython.terminal.interactiveshell")
    tshell.TerminalInteractiveShell = type("TerminalInteractiveShell", (), {"__module__": "IPython.terminal.interactiveshell"})
    terminal.interactiveshell = tshell
    ipy.terminal = terminal
    mods.update({"IPython.core.release": release, "IPython.lib": lib, "IPython.lib.display": ldisp, "IPython.lib.pretty": lpretty, "IPython.lib.backgroundjobs": jobs,
                 "IPython.core.formatters": formatters, "IPython.core.interactiveshell": ishell,
                 "IPython.terminal": terminal, "IPython.terminal.interactiveshell": tshell})
    return mods


# The classes read as IPython's own (their repr names the module).
for _c in (DisplayHandle, DisplayObject, TextDisplayObject, HTML, Markdown, Latex, SVG, Pretty, Javascript, JSON, Image, Code):
    _c.__module__ = "IPython.core.display"
DisplayHandle.__module__ = "IPython.core.display_functions"
TimeitResult.__module__ = "IPython.core.magics.execution"
SList.__module__ = "IPython.utils.text"
UsageError.__module__ = "IPython.core.error"
StdinNotImplementedError.__module__ = "IPython.core.error"
Macro.__module__ = "IPython.core.macro"
del _c

_ipy_shell = None


def get_ipython():
    """The shell of this kernel."""
    return _ipy_shell


_IPY_DISPLAY_NAMES = ("display", "update_display", "clear_output", "DisplayHandle", "DisplayObject", "TextDisplayObject",
                      "HTML", "Markdown", "Latex", "SVG", "Pretty", "JSON", "Image", "Code", "Javascript")


def _ipy_modules():
    """IPython, IPython.display and IPython.core.magic for an image without
    IPython."""
    ipy = types.ModuleType("IPython")
    ipy.__path__ = []
    ipy.get_ipython = get_ipython
    ipy.display = disp = types.ModuleType("IPython.display")
    for n in _IPY_DISPLAY_NAMES:
        setattr(disp, n, globals()[n])
    core = types.ModuleType("IPython.core")
    core.__path__ = []
    cdisp = types.ModuleType("IPython.core.display")
    for n in _IPY_DISPLAY_NAMES:
        setattr(cdisp, n, globals()[n])
    magic = types.ModuleType("IPython.core.magic")
    errors = types.ModuleType("IPython.core.error")
    errors.UsageError = UsageError

    def _register(kind):
        def deco(arg):
            def reg(func, name=None):
                _ipy_shell.register_magic_function(func, kind, name)
                return func

            if callable(arg):
                return reg(arg)
            return lambda func: reg(func, arg)

        return deco

    magic.register_line_magic = _register("line")
    magic.register_cell_magic = _register("cell")
    magic.register_line_cell_magic = _register("line_cell")
    # matplotlib reads its GUI table when it finds IPython: the inline backend has none.
    pylab = types.ModuleType("IPython.core.pylabtools")
    pylab.backend2gui = {}
    core.display, core.magic, core.error, core.pylabtools = cdisp, magic, errors, pylab
    ipy.core = core
    return _ipy_surface({"IPython": ipy, "IPython.display": disp, "IPython.core": core, "IPython.core.display": cdisp,
                         "IPython.core.magic": magic, "IPython.core.error": errors, "IPython.core.pylabtools": pylab})


class _IPyFinder:
    """Gives cells IPython's modules: the image's own IPython with its
    display functions publishing here, else this driver's."""

    def __init__(self):
        self.own = None

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "matplotlib.pyplot":
            return self._patched(fullname, path, target)
        if fullname != "IPython" and not fullname.startswith("IPython."):
            return None
        import importlib.util

        if self.own is None:
            for finder in _ipy_sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                try:
                    real = finder.find_spec("IPython", None)
                except Exception:
                    real = None
                if real is not None:
                    self.own = False
                    break
            else:
                self.own = True
        if self.own:
            mods = _ipy_modules()
            for name, mod in mods.items():
                _ipy_sys.modules.setdefault(name, mod)
            mod = _ipy_sys.modules.get(fullname)
            if mod is None:
                return None
            return importlib.util.spec_from_loader(fullname, _IPyLoader(mod))
        if fullname in _PATCHED:
            return self._patched(fullname, path, target)
        return None

    def _patched(self, fullname, path, target):
        """The module's own spec, with a loader that patches it."""
        for finder in _ipy_sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _PatchLoader(spec.loader)
                return spec
        return None


# The modules of an installed IPython whose functions are this kernel's.
_PATCHED = {
    "IPython": ("get_ipython",),
    "IPython.core.getipython": ("get_ipython",),
    "IPython.display": ("display", "update_display", "clear_output"),
    "IPython.core.display_functions": ("display", "update_display", "clear_output"),
    "matplotlib.pyplot": ("show",),
}


def show(*args, **kwargs):
    """pyplot.show() as IPython's inline backend does it: each open figure
    becomes a display output, and is closed. The driver calls it at a
    cell's end too, as the backend's flush_figures: figures left open show
    after the cell's value."""
    plt = _ipy_sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    try:
        for num in plt.get_fignums():
            display(plt.figure(num))
    finally:
        plt.close("all")


class _IPyLoader:
    def __init__(self, mod):
        self.mod = mod

    def create_module(self, spec):
        return self.mod

    def exec_module(self, module):
        pass


class _PatchLoader:
    """Runs the real module, then points its display functions here."""

    def __init__(self, loader):
        self.loader = loader

    def __getattr__(self, name):  # get_source, get_filename… are the loader's
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        for n in _PATCHED.get(module.__name__, ()):
            if hasattr(module, n):
                setattr(module, n, globals()[n])


def _ipy_dir_history():
    """IPython's _dh as its shell starts: the working directory, a Path."""
    import pathlib

    return [pathlib.Path.cwd()]


def _ipy_input(ns, n, code, raw):
    """IPython's input history as cell n starts: In, as transformed; _i
    (the cell before), _ii, _iii and _iN (this one), as written; %history's
    raw history. IPython keeps them without their final line breaks."""
    inputs = ns.get("In")
    if not isinstance(inputs, list):
        inputs = ns["In"] = [""]
    del inputs[n:]  # the count started again (a restart, a move)
    while len(inputs) < n:
        inputs.append("")
    inputs.append(code.rstrip("\n"))
    raws = _ipy_state["raw"]
    del raws[n:]
    while len(raws) < n:
        raws.append("")
    raws.append(raw)
    ns["_iii"], ns["_ii"], ns["_i"] = ns.get("_ii", ""), ns.get("_i", ""), _ipy_state["i00"]
    _ipy_state["i00"] = ns["_i%d" % n] = raw.rstrip("\n")
    ns["_ih"] = inputs
    if not isinstance(ns.get("Out"), dict):
        # As IPython's shell starts: Out empty, the last values '', the
        # directory history its working directory.
        ns["Out"] = ns["_oh"] = {}
        for name in ("_", "__", "___"):
            ns.setdefault(name, "")
        ns.setdefault("_dh", _ipy_dir_history())
    log = _ipy_state["log"]
    if log is not None:
        # As IPython: the transformed cell ends its line, the raw one is as
        # the front end sent it (without the newline a cell's end has not).
        _log_write(raw.rstrip("\n") if log["raw"] else code.rstrip("\n") + "\n")


def _ipy_history_start(n):
    """Cell n starts: IPython's history keeps its outputs from now (those of
    a count run again are dropped, as in a restarted count)."""
    outs = _ipy_state["outputs"]
    for k in [k for k in outs if k >= n]:
        del outs[k]
    _ipy_state["tee"] = outs[n] = []
    _ipy_state["tee_left"] = _st.out.cap


def _ipy_history_end():
    _ipy_state["tee"] = None


def _ipy_history_output(output):
    """An output of the running cell, for %notebook: streams written one
    after another in one output (their parts joined when it is written),
    as IPython's history keeps them; a cell's stream text up to its output
    limit, as the kernel sends it."""
    outs = _ipy_state["tee"]
    if outs is None:
        return
    if output["output_type"] == "stream":
        text = output["text"][: max(_ipy_state["tee_left"], 0)]
        if not text:
            return
        _ipy_state["tee_left"] -= len(text)
        if outs and outs[-1]["output_type"] == "stream" and outs[-1]["name"] == output["name"]:
            outs[-1]["parts"].append(text)
            return
        output = {"output_type": "stream", "name": output["name"], "parts": [text]}
    outs.append(output)


def _ipy_history_error(e):
    """The running cell's exception, as IPython's history stores it."""
    import traceback

    try:
        tb = [] if isinstance(e, UsageError) else [ln.rstrip("\n") for ln in traceback.format_exception(type(e), e, e.__traceback__)]
    except BaseException:  # noqa: B036 - an exception whose str() raises
        tb = []
    _ipy_history_output({"output_type": "error", "ename": type(e).__name__, "evalue": _safe(e, "exception"), "traceback": tb})


def _ipy_output(ns, n, value):
    """IPython's output history after cell n showed value as Out[n]: Out,
    _, __, ___, _N."""
    outputs = ns.get("Out")
    if not isinstance(outputs, dict):
        outputs = ns["Out"] = {}
    ns["_oh"] = outputs
    if value is outputs:
        return  # IPython keeps Out out of itself
    outputs[n] = value
    _log_write(repr(value), "output")
    # IPython keeps the last three values, and gives them to _, __ and ___
    # unless a cell assigned one of them since it last did.
    kept, given = _ipy_state["unders"], _ipy_state["given"]
    update = all(ns.get(k, given[i]) is given[i] for i, k in enumerate(("_", "__", "___")))
    kept[:] = [value, kept[0], kept[1]]
    if update:
        ns["_"], ns["__"], ns["___"] = kept
        given[:] = kept
    ns["_%d" % n] = value


def _rest_as_written(line, words):
    """The statement of %timeit or %prun: line after its option words (as
    shlex split them), as written, not re-joined from the words."""
    rest = line
    for w in words:
        rest = rest.lstrip()[len(w):] if rest.lstrip().startswith(w) else rest
    return rest.strip()


def _getopt_spec(flags, with_value):
    """The getopt spec IPython names in a bad option's message."""
    return "".join(c + (":" if c in with_value else "") for c in flags + with_value)


def _log_write(data, kind="input"):
    """Writes to %logstart's log when it is on: inputs, and with -o the
    outputs as #[Out]# lines."""
    log = _ipy_state["log"]
    if log is None or not log["active"] or not data:
        return
    f = log["file"]
    if kind == "input":
        if log["time"]:
            f.write(_ipy_time.strftime("# %a, %d %b %Y %H:%M:%S\n", _ipy_time.localtime()))
        f.write(data)
    elif log["output"]:
        f.write("\n".join("#[Out]# %s" % s for s in data.splitlines()) + "\n")
    f.flush()


def _ipy_macro(ns, code):
    """A cell that is a macro's name alone runs the macro's code, as
    IPython's prefilter does for a line."""
    name = code.strip()
    if "\n" in name or not name.isidentifier() or not isinstance(ns.get(name), Macro):
        return code
    indent = code[: len(code) - len(code.lstrip())]
    return indent + ("\n" + indent).join(ns[name].value.splitlines())


_HISTORY_NAME = None


_IPY_LINE_SPLIT = None


def _ipy_prefilter(ns, code):
    """IPython's automagic and autocall, which its shell applies after the
    static transformations (done on the host) to a cell that is one line:
    a line magic's name first runs that magic with the rest of the line,
    unless the rest starts with = or , or the name is bound in the
    namespace, a builtin or a keyword (Python's meaning wins); with
    %autocall on, a callable's name first is called with the rest of the
    line as its arguments (the call is printed). Leading blank lines stay,
    so that line numbers hold."""
    global _IPY_LINE_SPLIT
    shell = _ipy_shell
    if shell is None or not shell.automagic and not _ipy_state["autocall"]:
        return code
    line = code.lstrip()  # IPython drops leading blank lines and the indent
    if not line or len(line.splitlines()) != 1:
        return code
    if _IPY_LINE_SPLIT is None:
        import re

        _IPY_LINE_SPLIT = re.compile(r"^(\s*)([,;/%]|!!?|\?\??)?\s*(%{0,2}[\w\.\*]*)(.*?$|$)")
    m = _IPY_LINE_SPLIT.match(line.rstrip("\r\n"))
    if m is None:
        return code
    ifun, raw_rest = m.group(3).strip(), m.group(4)
    rest = raw_rest.lstrip()
    if rest[:1] in ("=", ",") and rest or not ifun:
        return code
    blank = "\n" * code[: len(code) - len(line)].count("\n")
    import keyword

    head = ifun.split(".", 1)[0]
    if shell.automagic and shell.find_line_magic(ifun) is not None:
        if head in ns or hasattr(_ipy_builtins, head) or keyword.iskeyword(head):
            return code
        return blank + "get_ipython().run_line_magic(%r, %r)\n" % (ifun, rest)
    call = _ipy_autocall(shell, line.rstrip("\r\n"), ifun, raw_rest, rest)
    return code if call is None else blank + call + "\n"


def _ipy_autocall(shell, line, ifun, raw_rest, rest):
    """The call %autocall makes of a line, or None: the name must be a
    callable's, the rest no operator, and the line not a string prefix's
    literal (f'...'); a bare name is called in full mode alone, and never
    a callable that is indexed."""
    import re

    mode = _ipy_state["autocall"]
    if not mode or rest[:1] and rest[0] in "!=()<>,+*/%^&|":
        return None
    try:
        obj = shell._lookup(ifun)
    except Exception:
        return None
    if ifun.lower() in ("b", "f", "r", "u", "br", "rb", "fr", "rf") and line[len(ifun): len(ifun) + 1] in ("'", '"'):
        return None
    if not callable(obj) or re.match(r"^[,&^\|\*/\+-]|^is |^not |^in |^and |^or ", rest) or not re.match(r"[a-zA-Z_]([a-zA-Z0-9_.]*) *$", ifun):
        return None
    if not (raw_rest.startswith(" ") or not raw_rest.strip()):
        return None
    if not rest and mode < 2 or rest.startswith("[") and hasattr(obj, "__getitem__"):
        return None
    call = "%s(%s);" % (ifun.rstrip(), rest[:-1]) if rest.endswith(";") else "%s(%s)" % (ifun.rstrip(), rest)
    if not (_ipy_state["autoawait"] and _ipy_awaits(call)):
        # ipykernel transforms a cell to learn whether it awaits, and the
        # shell transforms one that does not again: the call shows twice,
        # the first time before the shell keeps the cell's outputs.
        tee, _ipy_state["tee"] = _ipy_state["tee"], None
        try:
            print("------> " + call)
            _ipy_sys.stdout.flush()
        finally:
            _ipy_state["tee"] = tee
    print("------> " + call)
    return call


def _ipy_awaits(code):
    """Whether code awaits at its top level."""
    import ast

    try:
        compile(code, "<autocall>", "exec")
        return False
    except SyntaxError:
        try:
            return bool(compile(code, "<autocall>", "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT).co_flags & 0x80)
        except SyntaxError:
            return False


def _ipy_hidden(name):
    """The names IPython keeps for itself, which no variable view shows."""
    global _HISTORY_NAME
    if _HISTORY_NAME is None:
        import re

        _HISTORY_NAME = re.compile(r"_+|_\d+|_i+|_i\d+|_ih|_oh|_dh|_exit_code")
    return name in ("In", "Out") or _HISTORY_NAME.fullmatch(name) is not None


def _ipython_setup(ns):
    """Installs the shell: get_ipython() and display() are builtins, as in
    IPython, and IPython's modules can be imported."""
    global _ipy_shell
    _ipy_shell = _IPyShell(ns)
    _ipy_builtins.get_ipython = get_ipython
    _ipy_builtins.display = display
    _ipy_sys.meta_path.insert(0, _IPyFinder())
