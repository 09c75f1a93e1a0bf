# backyard-ls kernel driver: runs notebook cells inside the kernel container.
#
# Stdlib only, Python >= 3.8, no files needed: the host starts it as
# `python3 -c <this source>`. It speaks frames on the file descriptors it was
# started with: requests on stdin, events on stdout; each frame is a 4-byte
# big-endian length and that many bytes of UTF-8 JSON. Everything the cell
# (or a subprocess) writes to fd 1 and 2 is captured through pipes and sent as
# output events, so nothing but frames ever reaches the real stdout.
#
# The host's first frame is the channel's key ({"t": "key"}): every frame the
# driver writes carries it after the length, and the host ends the kernel at
# the first frame without it. So bytes a cell writes to the channel's
# descriptor (it can find it in /proc/self/fd) are never taken for the
# driver's. (The key is in the driver's memory, which the cell shares: the
# channel is guarded against writes, not against a cell that reads the
# interpreter it runs in.)
import os
import sys

if sys.version_info < (3, 8):
    sys.stderr.write("backyard-ls needs python3 >= 3.8 in the image, found %s\n" % sys.version.split()[0])
    sys.exit(3)

import builtins
import json
import select
import signal
import threading
import time
import types

# Output is batched: under gVisor each write(2) is expensive, so a cell's
# prints are gathered for FLUSH_DELAY (or FLUSH_BYTES) and sent together,
# and always at the end of the cell.
FLUSH_DELAY = 0.004
FLUSH_BYTES = 16384
RAW_POLL = 0.001
PROTOCOL = 1


class _State:
    in_cell = False  # SIGINT raises KeyboardInterrupt only while a cell runs
    after_value = False  # the cell's value is made: displays now come after it (the inline backend's figures)
    sigint = False  # a SIGINT came while the running cell ran
    cell_ticks = 0  # when the running cell started, in clock ticks since boot
    stdin = False  # the host can answer input() for the running cell
    input_seq = 0  # numbers input requests, so a late answer is not taken
    reader = None  # the _Reader of host requests
    child = False  # this process is a fork of the driver
    cell_no = 0  # runs so far (the names of uncounted cells' files)
    loop = None  # asyncio loop for cells with top-level await
    out = None  # the _Out
    err_file = None  # the container's own stderr
    calls = 0  # host calls made
    exec_id = 0  # the running cell's request id
    key = b""  # the channel's key, the host's first frame
    future = 0  # the compiler flags of the __future__ features cells imported
    streams = ()  # the driver's sys.stdout and sys.stderr


_st = _State()


def _future_flags():
    import __future__

    flags = 0
    for name in __future__.all_feature_names:
        flags |= getattr(__future__, name).compiler_flag
    return flags


_FUTURE_FLAGS = _future_flags()


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _frame(msg):
    text = json.dumps(msg, ensure_ascii=False, separators=(",", ":"))
    try:
        body = text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (print("\ud800")): escaped, it reaches the host
        # as one U+FFFD (a pair as its character), as Jupyter shows it.
        body = json.dumps(msg, separators=(",", ":")).encode("ascii")
    return (len(_st.key) + len(body)).to_bytes(4, "big") + _st.key + body


def _overwrite(text):
    """Carriage returns in text done as a terminal does them, as far as
    text goes: "A\rB\rC" becomes "A\r" and C written over B, which shows
    the same wherever A's line began. A progress bar then sends its states
    as they are at each flush, not every one it printed."""
    if "\r" not in text:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        parts = line.split("\r")
        if len(parts) <= 2:
            continue
        shown = ""
        for part in parts[1:]:
            shown = part + shown[len(part):]
        lines[i] = parts[0] + "\r" + shown + ("\r" if parts[-1] == "" else "")
    return "\n".join(lines)


class _Out:
    """Buffers the streams of the running cell and sends them as frames.

    One background thread sends what is buffered FLUSH_DELAY after the first
    write and forwards what subprocesses and C code write to fd 1 and 2.
    """

    def __init__(self, proto_fd, raw_fds):
        self.fd = proto_fd
        self.raw = raw_fds  # {read end of the fd-1/fd-2 pipe: stream name}
        self.lock = threading.Lock()
        self.raw_lock = threading.Lock()
        self.parts = []
        self.size = 0
        self.armed = False  # something is buffered; the thread will send it
        self.armed_at = 0.0  # when the first buffered write came
        self.urgent = False  # send it now: the buffer is large
        self.last_poll = 0.0
        self.child_exited = False  # set by SIGCHLD
        self.silent = False
        self.cap = 1 << 20
        self.sent = {"stdout": 0, "stderr": 0}
        self._no_tails()
        self.decoders = {}
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)
        for fd in raw_fds:
            os.set_blocking(fd, False)

    def start_cell(self, cap, silent):
        with self.lock:
            self.cap = cap
            self.silent = silent
            self.sent = {"stdout": 0, "stderr": 0}
            self._no_tails()

    def _no_tails(self):
        # What a stream writes past the cap: its last cap characters, sent
        # when the cell ends (the host shows the head and the tail), and
        # the bytes dropped before them.
        self.tails = {"stdout": [], "stderr": []}
        self.tail_chars = {"stdout": 0, "stderr": 0}
        self.cut = {"stdout": 0, "stderr": 0}

    def _keep_tail(self, stream, text):
        tail = self.tails[stream]
        tail.append(text)
        self.tail_chars[stream] += len(text)
        if len(tail) > 64 and self.tail_chars[stream] > 2 * self.cap:
            # Trimmed now and then: a print loop past the cap costs an
            # append per write.
            self._trim_tail(stream)

    def _trim_tail(self, stream):
        text = "".join(self.tails[stream])
        if len(text) > self.cap:
            self.cut[stream] += len(text[:-self.cap].encode("utf-8", "surrogatepass"))
            text = text[-self.cap:]
        self.tails[stream] = [text]
        self.tail_chars[stream] = len(text)

    def write(self, stream, text):
        if not text:
            return
        if _st.child:
            # A fork of the driver must never write frames: its output goes
            # to the fd pipes, which the driver forwards.
            _write_all(1 if stream == "stdout" else 2, text.encode("utf-8", "replace"))
            return
        now = time.monotonic()
        if self.child_exited or now - self.last_poll >= RAW_POLL:
            # What a subprocess wrote must come before this. Polling when
            # one has exited (SIGCHLD), else every RAW_POLL, keeps print
            # loops free of extra syscalls.
            self.child_exited = False
            self.last_poll = now
            self.poll_raw()
        self._append(stream, text)

    def _append(self, stream, text):
        with self.lock:
            if self.silent:
                return
            self.parts.append((stream, text))
            self.size += len(text)
            wake = False
            if not self.armed:
                self.armed, self.armed_at, wake = True, time.monotonic(), True
            if self.size >= FLUSH_BYTES and not self.urgent:
                self.urgent, wake = True, True
        if wake:
            try:
                os.write(self.wake_w, b"x")
            except BlockingIOError:
                pass  # the pipe is full of wake-ups already

    def _runs(self):
        """The buffered parts as runs of one stream each, carriage returns
        done (_overwrite) and capped: the host caps and marks the output;
        sending a little past the cap (counted in characters, never more
        than bytes) lets it see that there was more, and what comes after
        goes to the stream's tail."""
        runs = []  # [stream, [texts]]: one frame per run of a stream
        for stream, text in self.parts:
            if runs and runs[-1][0] == stream:
                runs[-1][1].append(text)
            else:
                runs.append([stream, [text]])
        out = []
        for stream, texts in runs:
            text = _overwrite("".join(texts))
            room = self.cap + 64 - self.sent[stream]
            if len(text) > room:
                self._keep_tail(stream, text[max(room, 0):])
                text = text[:max(room, 0)]
            self.sent[stream] += len(text)
            if text:
                out.append((stream, text))
        return out

    def _take(self):
        runs = self._runs()
        self.parts, self.size, self.armed, self.urgent = [], 0, False, False
        return b"".join(_frame({"t": "out", "s": s, "d": d}) for s, d in runs)

    def flush(self, final=None, end=False):
        """Sends what is buffered, then final; end (the cell is over) sends
        the streams' tails first, each with the bytes cut before it."""
        with self.lock:
            data = self._take()
            if end:
                for stream in ("stdout", "stderr"):
                    if self.tails[stream]:
                        self._trim_tail(stream)
                        data += _frame({"t": "out", "s": stream, "d": self.tails[stream][0], "cut": self.cut[stream]})
                self._no_tails()
            if final is not None:
                data += _frame(final)
            if data:
                _write_all(self.fd, data)

    def poll_raw(self, extra=()):
        """Moves what subprocesses already wrote into the buffer and returns
        which of the raw pipes and extra fds are readable. The lock is taken
        first so that a drain in progress on the thread completes before."""
        with self.raw_lock:
            ready = select.select(list(self.raw) + list(extra), [], [], 0)[0]
            if any(fd in self.raw for fd in ready):
                self._drain_locked()
        return ready

    def drain_raw(self):
        with self.raw_lock:
            self._drain_locked()

    def _drain_locked(self):
        import codecs

        for fd, stream in self.raw.items():
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                dec = self.decoders.get(fd)
                if dec is None:
                    dec = self.decoders[fd] = codecs.getincrementaldecoder("utf-8")("replace")
                self._append(stream, dec.decode(chunk))

    def run(self):
        fds = [self.wake_r] + list(self.raw)
        while True:
            # The batch is sent FLUSH_DELAY after its first write (at once
            # when it is large); the cell's end may have sent it already.
            timeout = None
            if self.armed:
                timeout = 0.0 if self.urgent else max(0.0, self.armed_at + FLUSH_DELAY - time.monotonic())
            try:
                ready, _, _ = select.select(fds, [], [], timeout)
            except InterruptedError:
                continue
            if self.wake_r in ready:
                os.read(self.wake_r, 4096)
            if len(ready) > (self.wake_r in ready):
                self.drain_raw()
            if self.armed and (self.urgent or time.monotonic() >= self.armed_at + FLUSH_DELAY):
                self.flush()


class _Stream:
    """sys.stdout / sys.stderr of the cell."""

    encoding = "utf-8"
    errors = "strict"
    mode = "w"
    closed = False
    newlines = None
    line_buffering = False

    def __init__(self, out, name, fd):
        self._out = out
        self.name = "<%s>" % name
        self._stream = name
        self._fd = fd
        self.buffer = _BinaryStream(self)

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not %s" % type(s).__name__)
        self.buffer.end()  # bytes left of a character written through .buffer
        self._out.write(self._stream, s)
        _ipy_history_output({"output_type": "stream", "name": self._stream, "text": s})
        return len(s)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        pass  # the driver flushes on its own schedule and at cell end

    def fileno(self):
        return self._fd

    def isatty(self):
        return False

    def readable(self):
        return False

    def writable(self):
        return True

    def seekable(self):
        return False


class _BinaryStream:
    """sys.stdout.buffer: bytes are decoded as one stream, as a terminal
    reads them, so a character split across writes arrives whole, and
    invalid bytes become U+FFFD as bytes.decode(errors="replace") makes
    them."""

    def __init__(self, text):
        self._text = text
        self._dec = None

    def write(self, b):
        try:
            data = memoryview(b).tobytes()
        except TypeError:
            raise TypeError("a bytes-like object is required, not '%s'" % type(b).__name__) from None
        if self._dec is None:
            import codecs

            self._dec = codecs.getincrementaldecoder("utf-8")("replace")
        self._text._out.write(self._text._stream, self._dec.decode(data))
        return len(data)

    def end(self):
        """Ends the byte stream: an incomplete character left becomes
        U+FFFD."""
        if self._dec is not None and self._dec.getstate()[0]:
            self._text._out.write(self._text._stream, self._dec.decode(b"", True))

    def flush(self):
        pass

    def fileno(self):
        return self._text.fileno()


def _on_sigint(signum, frame):
    if _st.in_cell and not _st.child:
        _st.sigint = True
        raise KeyboardInterrupt


def _on_sigchld(signum, frame):
    _st.out.child_exited = True


# ---- running a cell -------------------------------------------------------


def _ends_with_semicolon(code, node):
    """Reports whether only a ';' (and comments) follow the last expression,
    IPython's way to hide a cell's value."""
    import io

    lines = io.StringIO(code, newline=None).readlines()  # newlines as the parser sees them
    tail = lines[node.end_lineno - 1].encode("utf-8")[node.end_col_offset :].decode("utf-8", "replace")
    tail += "".join(lines[node.end_lineno :])
    i = 0
    while i < len(tail):
        c = tail[i]
        if c == ";":
            return True
        if c == "#":
            j = tail.find("\n", i)
            i = len(tail) if j < 0 else j
        i += 1
    return False


# The rich formatters' methods and MIME types, from the shell's table.
_REPR_METHODS = tuple((meth, mt) for _, mt, meth in _IPY_FORMATTER_TYPES if mt != "text/plain")


def _mime_data(data):
    import base64

    if isinstance(data, (bytes, bytearray)):
        return base64.b64encode(bytes(data)).decode("ascii")
    if isinstance(data, str):
        return data
    return json.dumps(data, default=repr)


def _figure_data(fig):
    """A figure's MIME data and metadata in the inline backend's formats
    (InlineBackend.figure_formats): nothing for an empty figure, as
    IPython."""
    import base64
    import io

    if not fig.axes and not fig.lines:
        return {}, {}
    mime, meta = {}, {}
    formats = _ipy_state["figure_formats"]
    kwargs = dict(_ipy_state["figure_kwargs"])

    def render(fmt, dpi):
        kw = {"format": fmt, "facecolor": fig.get_facecolor(), "edgecolor": fig.get_edgecolor(), "dpi": dpi, "bbox_inches": "tight"}
        kw.update(kwargs)
        buf = io.BytesIO()
        fig.canvas.print_figure(buf, **kw)
        return buf.getvalue()

    if "png" in formats:
        mime["image/png"] = base64.b64encode(render("png", fig.dpi)).decode("ascii")
    if "retina" in formats or "png2x" in formats:
        data = render("png", fig.dpi * 2)
        w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")  # the PNG's IHDR
        mime["image/png"] = base64.b64encode(data).decode("ascii")
        meta["image/png"] = {"width": w // 2, "height": h // 2}
    if "jpg" in formats or "jpeg" in formats:
        mime["image/jpeg"] = base64.b64encode(render("jpeg", fig.dpi)).decode("ascii")
    if "svg" in formats:
        mime["image/svg+xml"] = render("svg", fig.dpi).decode("utf-8")
    if "pdf" in formats:
        mime["application/pdf"] = base64.b64encode(render("pdf", fig.dpi)).decode("ascii")
    return mime, meta


def _is_figure(v):
    mf = sys.modules.get("matplotlib.figure")
    return mf is not None and isinstance(v, mf.Figure)


def _bundle(value):
    """The MIME bundle of a value: text/plain always, plus what the object
    offers (_repr_mimebundle_, _repr_*_ methods, a matplotlib figure)."""
    try:
        # %pprint off: IPython's plain text formatter gives repr() alone
        text = _pretty_text(value, _ipy_state["precision"]) if _ipy_state["pprint"] else repr(value)
    except Exception:  # a _repr_pretty_ that fails: the repr, as before
        text = repr(value)
    mime = {"text/plain": text}
    if isinstance(value, type) or _ipy_state["plain_only"]:  # %doctest_mode: text/plain alone
        return mime
    if _is_figure(value):
        mime.update(_figure_data(value)[0])
        return mime
    bundle = getattr(value, "_repr_mimebundle_", None)
    if callable(bundle):
        try:
            b = bundle(include=None, exclude=None)
            if isinstance(b, tuple):
                b = b[0]
            for k, v in (b or {}).items():
                mime[k] = _mime_data(v)  # its text/plain too, as IPython's formatter takes it
        except Exception:
            pass
    for meth, mt in _REPR_METHODS:
        # The shell's formatters: a printer registered for the type comes
        # first; a disabled formatter gives nothing.
        printer = _ipy_type_printer(value, mt)
        if printer is False:
            mime.pop(mt, None)
            continue
        f = printer or getattr(value, meth, None)
        if (mt in mime and printer is None) or not callable(f):
            continue
        try:
            data = f(value) if printer is not None else f()
        except Exception:
            continue
        if isinstance(data, tuple):
            data = data[0]
        if data is not None:
            mime[mt] = _mime_data(data)
    return mime


def _cut(text, cap):
    """text cut to at most cap bytes of UTF-8, and how many characters were
    cut."""
    if len(text) <= cap // 4:
        return text, 0
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= cap:
        return text, 0
    kept = data[:cap].decode("utf-8", "ignore")
    return kept, len(text) - len(kept)


def _capped(v, cap):
    """Caps a value like the streams: its text is cut (the host adds the
    marker), MIME data over the cap is dropped (cut data would be corrupt)."""
    v["text"], cut = _cut(v["text"], cap)
    if cut:
        v["cut"] = cut
    mime = v.get("mime")
    if mime:
        mime["text/plain"] = v["text"]
        for k in list(mime):
            if k != "text/plain" and len(mime[k]) > cap:
                v.setdefault("dropped", {})[k] = len(mime[k])
                del mime[k]
    return v


def _run(code_obj, ns):
    if code_obj.co_flags & 0x80:  # CO_COROUTINE: the cell uses top-level await
        runner = _ipy_state["loop_runner"]
        if runner == "asyncio":
            import asyncio

            if _st.loop is None:
                _st.loop = asyncio.new_event_loop()
            return _st.loop.run_until_complete(eval(code_obj, ns))
        return _ipy_run_with(runner, lambda: eval(code_obj, ns))
    return eval(code_obj, ns)


def _run_compiling(tree, fname, flags, ns):
    """Runs the statements of a cell that parses but does not compile as a
    whole, as IPython compiles and runs a cell's statements one by one: up
    to the first that does not compile alone (an await with %autoawait
    off, a return outside a function), False then; True when all ran (a
    from __future__ import after other statements compiles alone, and its
    feature holds for the statements after it)."""
    import ast

    for node in tree.body:
        try:
            code = compile(ast.Module([node], []), fname, "exec", flags | _st.future, dont_inherit=True)
        except SyntaxError:
            return False
        _st.future |= code.co_flags & _FUTURE_FLAGS
        _st.in_cell = True
        _run(code, ns)
    return True


def _cell_end(silent, after_value):
    """The end of a cell, as IPython's post_execute: the inline backend
    shows the open figures as display outputs (after the value, when there
    is one) and closes them; then the shell's callbacks run. A silent
    (replayed) cell shows no figure, now or later."""
    if silent:
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is not None:
            plt.close("all")
        return
    if sys.modules.get("matplotlib.pyplot") is not None:
        _st.after_value = after_value
        try:
            show()
        finally:
            _st.after_value = False
    if _ipy_shell is not None:
        _ipy_shell.events.trigger("post_execute")


def _cell_name(count, lines):
    """The file a cell's code (its lines) is compiled as: <cell-N> for
    execution count N, so a traceback or warning names the cell as the user
    numbers it (as IPython's names carry the count). A name is not reused
    for other code, whose functions' frames would show the wrong lines;
    such code and uncounted runs get the run's own number after the count."""
    import linecache

    name = "<cell-%d>" % count
    held = linecache.cache.get(name)
    if count > 0 and (held is None or held[2] == lines):
        return name
    return "<cell-%d-%d>" % (count, _st.cell_no)


def _execute(req, ns):
    """Runs one cell and returns its done message, or an int exit code when
    this process is a fork of the driver that came back into it."""
    import ast
    import linecache

    code = req.get("code", "")
    silent = req.get("silent", False)
    _st.stdin = bool(req.get("stdin"))
    _st.cell_ticks = int(time.clock_gettime(_BOOT_CLOCK) * _TICKS)
    _st.cell_no += 1
    lines = code.splitlines(True)
    fname = _cell_name(int(req.get("count") or 0), lines)
    linecache.cache[fname] = (len(code), None, lines, fname)
    # The __future__ features earlier cells imported stay on, as IPython
    # keeps its compiler's flags across cells.
    flags = (getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0) if _ipy_state["autoawait"] else 0) | _st.future  # %autoawait
    done = {"t": "done", "id": req["id"], "status": "ok"}
    raised = True
    _ipy_state["shown_exc"] = None
    if req.get("last_error") is not None and not silent:
        # The document's last exception, raised on another backend (an
        # auto kernel's Monty): the shell's last one, for %tb and %debug.
        _ipy_state["last_exc"] = _ipy_carried(req["last_error"])
    _bind(req, ns)
    for e in req.get("history") or ():
        # Cells the document ran on another backend, in IPython's history.
        _ipy_input(ns, e["count"], e["code"], e["source"])
        # Its lines under the name it runs under here, for the frames of
        # an exception it raised there (%debug, %tb).
        name = "<cell-%d>" % e["count"]
        linecache.cache.setdefault(name, (len(e["code"]), None, e["code"].splitlines(True), name))
        name = "_%d" % e["count"]
        if e.get("value") and name in ns:
            _ipy_output(ns, e["count"], ns[name])
    if req.get("count"):
        # A silent cell with a count is one the document ran elsewhere,
        # replayed: it is filed all the same.
        _ipy_input(ns, int(req["count"]), code, req.get("source") or code)
        if not silent:
            _ipy_history_start(int(req["count"]))
        code = _ipy_macro(ns, code)
    code = _ipy_prefilter(ns, code)
    if req.get("file"):
        ns["__file__"] = req["file"]  # as VS Code's Interactive Window defines it
    parsed = False
    try:
        try:
            tree = _ipy_wrapped(compile(code, fname, "exec", ast.PyCF_ONLY_AST | flags, dont_inherit=True))
            parsed = True
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr) and not _ends_with_semicolon(code, tree.body[-1]):
                last = tree.body.pop()
            try:
                body = compile(tree, fname, "exec", flags, dont_inherit=True)
            except SyntaxError:
                if not _run_compiling(tree, fname, flags, ns):
                    raise
                body = None  # its statements ran one by one
            else:
                _st.future |= body.co_flags & _FUTURE_FLAGS
            flags |= _st.future
            expr = None
            if last is not None:
                try:
                    expr = compile(ast.Expression(last.value), fname, "eval", flags, dont_inherit=True)
                except SyntaxError:
                    _st.in_cell = True
                    if body is not None:
                        _run(body, ns)  # the statements before it run, as in IPython
                    raise
            _st.in_cell = True
            if body is not None:
                _run(body, ns)
            value = _run(expr, ns) if expr is not None else None
            raised = False
            if _st.child:
                return 0
            # As IPython's display hook: the value is formatted before
            # Out and _ hold it.
            mime = None
            if not silent and value is not None and not _ipy_displays_itself(value):
                mime = _bundle(value)
            if req.get("count") and value is not None:
                _ipy_output(ns, int(req["count"]), value)
            if not silent:
                v = None
                if mime is not None:
                    v = {"text": mime["text/plain"], "mime": mime}
                    _ipy_history_output({"output_type": "execute_result", "data": dict(mime)})
                _cell_end(silent, True)
                if v is not None:
                    v = _capped(v, int(req.get("max_output", 1 << 20)))
                    if len(v["mime"]) == 1:
                        del v["mime"]
                    done["value"] = v
            else:
                _cell_end(silent, False)
            if _ipy_state["shown_exc"] is not None and not silent:
                # %tb: an error output beside the ok reply, as IPython's
                # kernel sends it.
                shown = _ipy_state["shown_exc"]
                done["error"] = shown.record if isinstance(shown, _CarriedError) else _error(shown, fname)
        finally:
            if _st.in_cell and raised and not _st.child:
                # As IPython: post_execute runs after a cell that raised too,
                # so the inline backend shows the figures it left open.
                try:
                    _cell_end(silent, False)
                except BaseException:  # noqa: B036 - the cell's own error is the one reported
                    pass
            _st.in_cell = False
    except SystemExit as e:
        if _st.child:
            return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        # As IPython: the exception ends the cell, the kernel goes on.
        done["status"] = "error"
        done["error"] = {"ename": "SystemExit", "evalue": _safe(e, "exception"), "traceback": _frames(e.__traceback__, fname)}
    except UsageError as e:
        if _st.child:
            return 1
        # As IPython shows it: the message, no traceback. IPython keeps it
        # as the last exception too (%tb shows it again).
        _ipy_state["last_exc"] = e
        done["status"] = "error"
        done["error"] = {"ename": "UsageError", "evalue": _safe(e, "exception"), "traceback": []}
        _ipy_history_error(e)
    except BaseException as e:
        if _st.child:
            return 1
        _ipy_state["last_exc"] = e  # for %tb and %debug
        done["status"] = "error"
        if not (parsed and isinstance(e, SyntaxError)):
            # IPython's history keeps no error a statement's compiling raised.
            _ipy_history_error(e)
        if _ipy_state["pdb"] and not silent and _ipy_shell is not None:
            # %pdb on: the debugger starts on the error; its prompt meets
            # a front end without stdin, an error raised handling this one.
            try:
                _ipy_shell._post_mortem(e)
            except BaseException as stop:  # noqa: B036 - the error the kernel reports
                e = stop
        try:
            done["error"] = _error(e, fname)
        except BaseException as e2:  # noqa: B036 - e.g. a RecursionError walking a deep chain
            done["error"] = {"ename": type(e).__name__, "evalue": "(traceback failed: %s)" % _safe(e2, "exception", repr), "traceback": []}
    return done


# A listing of the variables takes at most VARS_SECONDS: past it, an
# object's own __repr__ (which could run forever) is no longer called.
VARS_SECONDS = 2.0


class _SlowRepr(BaseException):
    pass


def _variables(req, ns):
    max_repr = int(req.get("max_repr", 200))
    armed = [True]

    def on_alarm(signum, frame):
        if armed[0]:
            raise _SlowRepr()

    old = signal.signal(signal.SIGALRM, on_alarm)
    old_timer = signal.setitimer(signal.ITIMER_REAL, VARS_SECONDS)
    safe = False
    out = []
    try:
        for name, v in list(ns.items()):
            if name.startswith("__") or _ipy_hidden(name) or isinstance(v, types.ModuleType) or getattr(v, "__backyard_host__", False):
                continue
            text = None
            if not safe:
                try:
                    text = __backyard_short_repr__(v, max_repr, False)
                except _SlowRepr:
                    safe = True
                except Exception as e:
                    text = "<repr failed: %s>" % type(e).__name__
            if text is None:
                text = __backyard_short_repr__(v, max_repr, True)
            out.append({"name": name, "type": type(v).__name__, "repr": text})
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if old_timer[0] > 0:
            signal.setitimer(signal.ITIMER_REAL, *old_timer)
    return {"t": "vars", "id": req["id"], "vars": out}


# ---- host functions and inputs ---------------------------------------------


_call_lock = threading.Lock()


def _not_json(v, depth=0):
    """What keeps v from crossing to the host as JSON, or None."""
    if v is None or isinstance(v, (bool, int, str)):
        return None
    if isinstance(v, float):
        return None if v == v and v not in (float("inf"), float("-inf")) else repr(v)
    if depth > 100:
        return "nested too deeply"
    if isinstance(v, (list, tuple)):
        for x in v:
            why = _not_json(x, depth + 1)
            if why:
                return why
        return None
    if isinstance(v, dict):
        for k, x in v.items():
            if not isinstance(k, str):
                return "a dict key that is not a str"
            why = _not_json(x, depth + 1)
            if why:
                return why
        return None
    return type(v).__name__


def _host_function(name):
    """A function of the namespace that runs on the host: arguments go as
    JSON in a call frame of the running cell, and the cell waits for the
    host's reply."""

    def call(*args, **kwargs):
        if _st.child:
            raise RuntimeError("%s() runs on the host: it cannot be called from a forked process" % name)
        if not _st.in_cell:
            # Between cells the main loop reads the requests.
            raise RuntimeError("%s() runs on the host: it can be called only while a cell runs" % name)
        for i, a in enumerate(args):
            why = _not_json(a)
            if why:
                raise TypeError("%s(): argument %d is not JSON-compatible: %s" % (name, i + 1, why))
        for k, a in kwargs.items():
            why = _not_json(a)
            if why:
                raise TypeError("%s(): argument %s is not JSON-compatible: %s" % (name, k, why))
        with _call_lock:
            _st.calls += 1
            n = _st.calls
            _st.out.flush({"t": "call", "id": _st.exec_id, "call": n, "name": name, "args": list(args), "kwargs": kwargs})
            while True:
                m = _st.reader.next()
                if m is None:
                    raise RuntimeError("%s(): the host went away" % name)
                if m.get("call") != n:
                    continue  # a late reply to a call that was interrupted
                if m.get("t") == "return":
                    return m.get("result")
                ename, evalue = m.get("ename", "RuntimeError"), m.get("evalue", "")
                exc = getattr(builtins, ename, None)
                if not (isinstance(exc, type) and issubclass(exc, BaseException)):
                    exc, evalue = RuntimeError, "%s: %s" % (ename, evalue)
                raise exc(evalue)

    call.__name__ = call.__qualname__ = name
    call.__backyard_host__ = True
    return call


def _bind(req, ns):
    """Binds the request's named inputs and host functions as globals."""
    _st.exec_id = req["id"]
    ns.update(req.get("inputs") or {})
    for name in req.get("functions") or ():
        ns[name] = _host_function(name)

# ---- input() ---------------------------------------------------------------


def _ask(prompt, password):
    """Asks the host for a line: the prompt goes to stdout, as a console
    shows it, and the answer is echoed after it. When the host cannot
    answer (its front end gives no stdin), the cell gets ipykernel's
    StdinNotImplementedError, its prompt unshown."""
    prompt = str(prompt)
    if not _st.stdin and not _st.child:
        raise StdinNotImplementedError(_NO_STDIN)
    _st.out.write("stdout", prompt)  # as CPython does, even with no stdin
    if _st.child:
        raise EOFError("EOF when reading a line")
    _st.input_seq += 1
    n = _st.input_seq
    _st.out.flush({"t": "input", "id": n, "prompt": prompt, "password": password})
    while True:
        m = _st.reader.next()
        if m is None:
            raise EOFError("EOF when reading a line")
        if m.get("t") == "input" and m.get("id") == n:
            break
    if m.get("raise") == "KeyboardInterrupt":
        raise KeyboardInterrupt("Interrupted by user")
    line = m.get("line")
    if line is None:
        raise EOFError("EOF when reading a line")
    _st.out.write("stdout", "\n" if password else line + "\n")
    return line


def _input(prompt=""):
    return _ask(prompt, False)


def _getpass(prompt="Password: ", stream=None):
    return _ask(prompt, True)


# ---- the cell's processes ---------------------------------------------------

_BOOT_CLOCK = getattr(time, "CLOCK_BOOTTIME", time.CLOCK_MONOTONIC)
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _end_cell_processes():
    """Kills the processes the running cell started (every descendant of the
    driver that started after the cell did; the driver is the container's
    init, so orphans count too) and reaps them, after an interrupt or a time
    limit, so the next cell sees none of them."""
    me = os.getpid()
    procs = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            procs[int(name)] = (int(fields[1]), int(fields[19]))  # ppid, start time
        except (OSError, IndexError, ValueError):
            continue
    children = {}
    for pid, (ppid, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    todo, victims = [me], []
    while todo:
        for c in children.get(todo.pop(), ()):
            todo.append(c)
            if procs[c][1] >= _st.cell_ticks:
                victims.append(c)
    for pid in victims:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    # Reap them: ours, and those reparented to the driver as their parent
    # died; a zombie of another parent (outside a container) is gone enough,
    # unless that parent is a victim too: it is then about to be ours.
    left, deadline = set(victims), time.monotonic() + 2
    killed = set(victims)
    while left and time.monotonic() < deadline:
        for pid in list(left):
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    left.discard(pid)
                continue
            except ChildProcessError:
                pass
            try:
                with open("/proc/%d/stat" % pid, "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                if fields[0] == b"Z" and int(fields[1]) != me and int(fields[1]) not in killed:
                    left.discard(pid)
            except (OSError, IndexError, ValueError):
                left.discard(pid)
        if left:
            time.sleep(0.005)


# ---- fork children --------------------------------------------------------


def _after_fork_in_child():
    # A fork of the driver (os.fork in a cell) writes output to the fd pipes
    # and exits when it would return into the driver.
    _st.child = True


def _child_exit(code):
    try:
        os.write(_zombie_w, os.getpid().to_bytes(4, "big"))
    except OSError:
        pass
    os._exit(code & 0xFF)


_zombies = set()


def _reap():
    """Reaps forks of the driver that came back into it (e.g. a fork bomb);
    children created otherwise are left to the code that created them."""
    try:
        data = os.read(_zombie_r, 65536)
        for i in range(0, len(data) - 3, 4):
            _zombies.add(int.from_bytes(data[i : i + 4], "big"))
    except (BlockingIOError, OSError):
        pass
    for pid in list(_zombies):
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == 0:
                continue
        except ChildProcessError:
            pass
        _zombies.discard(pid)


# ---- the workspace ---------------------------------------------------------


class _Files:
    """The workspace as the cells see it. With files.write "sandbox" the host
    sends its visible files ("put") into in-memory folders mounted at the
    workspace's own paths; "base" then records them, so that the files each
    cell created, changed or deleted (and the overlay: what differs from the
    workspace) are found by comparing the trees."""

    MAX_ENTRIES = 20000  # larger trees are not tracked (a scan per cell)

    def __init__(self):
        self.roots = []
        self.base = {}  # path -> (size, mtime_ns, sha256 or None)
        self.last = {}  # path -> (size, mtime_ns, ino) after the previous cell
        self.tracked = False
        self.digests = {}  # path -> sha256 the host sent with the file

    def put(self, req):
        raw = memoryview(req.get("raw") or b"")  # the files' data, one after the other
        at = 0
        for f in req.get("files", ()):
            p, kind = f["p"], f.get("k", "f")
            if kind == "d":
                os.makedirs(p, exist_ok=True)
            elif kind == "l":
                os.symlink(f.get("l", ""), p)
            else:
                size = f.get("s", 0)
                with open(p, "wb") as fh:
                    fh.write(raw[at : at + size])
                at += size
                self.digests[p] = f.get("h")
            if kind != "l":
                t = f.get("t")
                if t is not None:
                    os.utime(p, (t, t))
                os.chmod(p, f.get("m", 0o644 if kind == "f" else 0o755))
        return {"t": "put", "id": req["id"]}

    def scan(self):
        state = {}
        stack = list(self.roots)
        while stack:
            d = stack.pop()
            try:
                it = os.scandir(d)
            except OSError:
                continue
            with it:
                for e in it:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            stack.append(e.path)
                            continue
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    state[e.path] = (st.st_size, st.st_mtime_ns, st.st_ino)
                    if len(state) > self.MAX_ENTRIES:
                        return None
        return state

    def set_base(self, req):
        self.roots = list(req.get("roots", ()))
        reply = {"t": "base", "id": req["id"]}
        cwd = req.get("cwd")
        if cwd:
            try:
                os.chdir(cwd)
            except OSError as e:
                reply["message"] = "cannot change to the working directory: %s" % e
        state = self.scan() if self.roots else None
        self.tracked = state is not None
        self.last = state or {}
        self.base = {p: (sig[0], sig[1], self.digests.get(p)) for p, sig in self.last.items()}
        self.digests = {}
        return reply

    @staticmethod
    def _digest(p):
        import hashlib

        h = hashlib.sha256()
        try:
            with open(p, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
        except OSError:
            return None
        return h.hexdigest()

    def changes(self):
        """The files the cell that just ran created, changed or deleted."""
        if not self.tracked:
            return []
        now = self.scan()
        if now is None:
            self.tracked = False
            return []
        out = []
        for p, sig in now.items():
            old = self.last.get(p)
            if old is None:
                out.append({"p": p, "st": "created"})
            elif old != sig:
                out.append({"p": p, "st": "changed"})
        out += [{"p": p, "st": "deleted"} for p in self.last if p not in now]
        self.last = now
        out.sort(key=lambda f: f["p"])
        return out

    def overlay(self, req):
        out = []
        now = self.scan() if self.tracked else None
        for p, sig in (now or {}).items():
            old = self.base.get(p)
            if old is None:
                out.append({"p": p, "s": sig[0], "st": "created"})
            elif old[:2] != sig[:2] and (old[2] is None or old[2] != self._digest(p)):
                out.append({"p": p, "s": sig[0], "st": "changed"})
        for p in self.base:
            if now is not None and p not in now:
                out.append({"p": p, "st": "deleted"})
        out.sort(key=lambda f: f["p"])
        return {"t": "overlay", "id": req["id"], "files": out}

    def read(self, req):
        import base64

        out = []
        for p in req.get("paths", ()):
            try:
                with open(p, "rb") as fh:
                    out.append({"p": p, "d": base64.b64encode(fh.read()).decode("ascii")})
            except FileNotFoundError:
                out.append({"p": p, "st": "deleted"})
        return {"t": "read", "id": req["id"], "files": out}

    def mark(self, req):
        """The host saved these files: they are the workspace's now."""
        for f in req.get("files", ()):
            p = f["p"]
            try:
                st = os.lstat(p)
                self.base[p] = (st.st_size, st.st_mtime_ns, self._digest(p))
            except OSError:
                self.base.pop(p, None)
        return {"t": "based", "id": req["id"]}


_files = _Files()
_FILE_REQUESTS = {"put": _files.put, "base": _files.set_base, "overlay": _files.overlay, "read": _files.read, "based": _files.mark}


# ---- main loop -------------------------------------------------------------


class _Reader:
    """Reads the host's frames. Not a generator: a KeyboardInterrupt while
    input() waits in read must leave it usable. A request that says "raw"
    gets the next frame's bytes as its "raw" (files, without base64); a large
    frame is read in one go."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()
        self.want = 1 << 16
        self.pending = None  # a request waiting for its raw frame

    def next(self):
        """The next request, None at the end of the input."""
        buf = self.buf
        while True:
            while len(buf) >= 4:
                n = int.from_bytes(buf[:4], "big")
                if len(buf) < 4 + n:
                    self.want = max(1 << 16, 4 + n - len(buf))
                    break
                self.want = 1 << 16
                body = bytes(memoryview(buf)[4 : 4 + n])
                del buf[: 4 + n]
                if self.pending is not None:
                    msg, self.pending = self.pending, None
                    msg["raw"] = body
                    return msg
                msg = json.loads(body.decode("utf-8"))
                if msg.get("raw"):
                    self.pending = msg
                    continue
                return msg
            chunk = os.read(self.fd, self.want)
            if not chunk:
                return None
            buf += chunk


def _setup():
    """Sets up the streams and the channel (reading its key); returns the
    output and the cells' namespace."""
    global _zombie_r, _zombie_w
    proto_in, proto_out = os.dup(0), os.dup(1)
    err_fd = os.dup(2)  # the container's stderr, for fatal errors of the driver
    _st.reader = _Reader(proto_in)
    hello = _st.reader.next()
    if not hello or hello.get("t") != "key":
        os.write(err_fd, b"backyard-ls driver: the host's first frame is not the channel's key\n")
        os._exit(3)
    _st.key = bytes.fromhex(hello["key"])
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    raw = {}
    for fd, name in ((1, "stdout"), (2, "stderr")):
        r, w = os.pipe()
        os.dup2(w, fd)
        os.close(w)
        raw[r] = name
    _zombie_r, _zombie_w = os.pipe()
    os.set_blocking(_zombie_r, False)
    os.set_blocking(_zombie_w, False)
    try:
        import faulthandler

        _st.err_file = os.fdopen(err_fd, "w", closefd=False)
        faulthandler.enable(_st.err_file)
    except Exception:
        pass
    out = _Out(proto_out, raw)
    sys.stdout = _Stream(out, "stdout", 1)
    sys.stderr = _Stream(out, "stderr", 2)
    _st.streams = (sys.stdout, sys.stderr)
    sys.stdin = open(os.devnull)
    builtins.input = _input
    limit = os.environ.pop("BACKYARD_RECURSION_LIMIT", "")
    if limit.isdigit():
        # CPython's own: sys.getrecursionlimit() reads it, and a cell's
        # recursion stops a few frames (the driver's) short of it, as in
        # Jupyter.
        sys.setrecursionlimit(int(limit))
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = main  # so pickle finds classes defined in cells
    _st.out = out
    signal.signal(signal.SIGINT, _on_sigint)
    signal.signal(signal.SIGCHLD, _on_sigchld)
    signal.siginterrupt(signal.SIGCHLD, False)  # no EINTR for C code
    os.register_at_fork(after_in_child=_after_fork_in_child)
    threading.Thread(target=out.run, name="backyard-output", daemon=True).start()
    return out, main.__dict__


def main():
    out, ns = _setup()
    _ipython_setup(ns)
    out.flush({"t": "ready", "protocol": PROTOCOL, "python": sys.version.split()[0], "pid": os.getpid()})
    # What every cell needs, loaded while the host has nothing to run yet.
    import ast, linecache  # noqa: F401

    try:
        import getpass

        getpass.getpass = _getpass  # a password question goes to the host too
    except ImportError:
        pass
    while True:
        req = _st.reader.next()
        if req is None:
            break
        kind = req.get("t")
        if kind == "exec":
            out.start_cell(int(req.get("max_output", 1 << 20)), bool(req.get("silent")))
            _st.sigint = False
            try:
                done = _execute(req, ns)
            except KeyboardInterrupt:  # a second SIGINT landed in the driver
                done = {"t": "done", "id": req["id"], "status": "error",
                        "error": {"ename": "KeyboardInterrupt", "evalue": "", "traceback": []}}
            finally:
                _ipy_history_end()
            if isinstance(done, int):
                _child_exit(done)
            for st in _st.streams:
                st.buffer.end()
            if _st.sigint:
                _end_cell_processes()
            # One select for both: output subprocesses already wrote, forks
            # to reap.
            ready = out.poll_raw([_zombie_r])
            if _zombie_r in ready or _zombies:
                _reap()
            if _files.tracked:
                done["files"] = _files.changes()
            out.flush(done, end=True)
            out.start_cell(1 << 20, False)  # output between cells
        elif kind == "vars":
            out.flush(_variables(req, ns))
        elif kind in ("return", "raise"):
            pass  # a late reply to a host call of an interrupted cell
        elif kind == "input":
            pass  # an answer that came after the cell stopped waiting
        elif kind in _FILE_REQUESTS:
            try:
                reply = _FILE_REQUESTS[kind](req)
            except Exception as e:
                reply = {"t": "error", "id": req.get("id", 0), "message": "%s: %s: %s" % (kind, type(e).__name__, e)}
            out.flush(reply)
        else:
            out.flush({"t": "error", "id": req.get("id", 0), "message": "unknown request %r" % (kind,)})


try:
    main()
except BaseException:
    # The driver itself failed: say why on the container's own stderr (fd 2
    # is the cells' pipe by now), which the host shows in its crash report.
    import traceback

    err = _st.err_file or sys.__stderr__
    err.write("backyard-ls driver failed:\n" + traceback.format_exc())
    err.flush()
    os._exit(70)
