# backyard-ls fork server: runs the independent snippets of a batch.
#
# Stdlib only, Python >= 3.8; the host starts it as
# `python3 -c <this source> N PART... MODULE...` in a hardened container,
# where the N PARTs joined are IPython's shell (the kernel driver's
# ipython.py) for the snippets that are cells with IPython syntax. It
# imports the MODULEs once, then for every "run" request forks a child that runs
# the snippet in an empty namespace under its own limits and exits. After
# each child the server kills every other process of the container and
# empties the writable directories, so no snippet sees what another left.
# Frames as the kernel driver's: a 4-byte big-endian length and UTF-8 JSON,
# requests on stdin, events on stdout.
#
# A child reports its outcome on a pipe (RESULT_FD) that its subprocesses do
# not inherit, prefixed with a key drawn for that run alone: whatever else the
# snippet writes there (a forged result, junk, a deep JSON array) makes the
# run a crash, never a result and never the server's end. (The key is in the
# child's memory, which the snippet owns: a snippet that reads its runtime's
# memory or rewrites its code can make it report anything, as it could by
# catching its own exceptions.)
import os
import sys

if sys.version_info < (3, 8):
    sys.stderr.write("backyard-ls needs python3 >= 3.8 in the image, found %s\n" % sys.version.split()[0])
    sys.exit(3)

import builtins
import errno
import json
import resource
import select
import shutil
import signal
import time

PROTOCOL = 1
WORKDIR = "/tmp"  # the snippet's working directory and HOME: a tmpfs
SCRATCH = ("/tmp", "/dev/shm", "/dev/mqueue")  # emptied after every snippet
RESULT_FD = 3  # where the child writes its outcome: the run's key, then JSON
KEY_BYTES = 16


def _frame(msg):
    body = json.dumps(msg, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    return len(body).to_bytes(4, "big") + body


_libc = None  # the C library (ctypes), set up by main
_stdio = None  # the child's sys.stdin, stdout, stderr, made once by main

# What the child reports with, taken before any snippet can replace it.
_dumps, _write, _exit, _closerange = json.dumps, os.write, os._exit, os.closerange


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[_write(fd, view) :]


def _read_exact(fd, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def _request(fd):
    """The next request, None once the host closed the stream. Read
    exactly, never ahead: a request sent while a snippet runs (a cancel)
    must be seen by select."""
    head = _read_exact(fd, 4)
    body = head and _read_exact(fd, int.from_bytes(head, "big"))
    return None if body is None else json.loads(body.decode("utf-8"))


# ---- IPython's shell ----------------------------------------------------------

_shell_source = ""  # ipython.py, the kernel driver's shell, from the arguments
_shell = None  # its globals, once a snippet needed it


class _ShellState:
    """What the shell reads of the driver's state: a snippet is never in a
    kernel's cell, so display() publishes nothing (a batch has no display
    outputs)."""

    in_cell = False
    child = False


def _no_host_function(name):
    def call(*args, **kwargs):
        raise RuntimeError("a batch snippet cannot call the host (%s): %%pip install needs a kernel" % name)

    return call


def _load_shell():
    """IPython's shell as the kernel driver has it (get_ipython() answers
    the calls of the host's transformation of IPython syntax), compiled in
    the server once, on the first snippet that needs it: every child after
    it finds it ready."""
    global _shell
    if _shell is None:
        ns = {"__name__": "backyard_shell", "__builtins__": builtins, "_st": _ShellState(), "_bundle": lambda v: {"text/plain": repr(v)},
              "_mime_data": lambda v: v, "_cut": lambda text, cap: (_cut(text, cap), len(text) > cap), "_is_figure": lambda v: False,
              "_figure_data": lambda fig: ({}, {}), "_host_function": _no_host_function,
              # The pretty printer's registry and text (the display formatter's).
              "_PP_USER": {}, "_PP_USER_BY_NAME": {}, "_pp_printers": dict,
              "_pretty_text": lambda obj, float_format=None, user=True: repr(obj), "_safe": _safe}
        exec(compile(_shell_source, "<backyard shell>", "exec", dont_inherit=True), ns)
        _shell = ns
    return _shell


# ---- in the child -----------------------------------------------------------


def _value_split(code, name):
    """Compiles code as IPython does with its default interactivity: a
    trailing expression statement is evaluated for its value unless a
    semicolon ends it. Returns (body, expr or None)."""
    import ast

    flags = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
    tree = compile(code, name, "exec", ast.PyCF_ONLY_AST | flags, dont_inherit=True)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not _hidden(code, tree.body[-1]):
        last = tree.body.pop()
    body = compile(tree, name, "exec", flags, dont_inherit=True)
    expr = compile(ast.Expression(last.value), name, "eval", flags, dont_inherit=True) if last else None
    return body, expr


def _hidden(code, node):
    """True when the tokens after the expression include a ';'."""
    import io
    import tokenize

    if ";" not in code:
        return False

    toks = tokenize.generate_tokens(io.StringIO(code).readline)
    try:
        for tok in toks:
            if tok.start < (node.end_lineno, node.end_col_offset):
                continue
            if tok.type == tokenize.OP and tok.string == ";":
                return True
    except (tokenize.TokenError, SyntaxError):
        pass
    return False


def _evaluate(code_obj, ns):
    if code_obj.co_flags & 0x80:  # CO_COROUTINE: top-level await
        import asyncio

        return asyncio.new_event_loop().run_until_complete(eval(code_obj, ns))
    return eval(code_obj, ns)


def _cut(text, cap):
    if len(text) <= cap:
        return text
    return text[:cap] + "\n[backyard: value truncated at %d characters]" % cap


def _setup_child(req, mapped):
    """Limits, files and streams of the child; mapped is the size of the
    address space it was forked with."""
    # Under gVisor every system call costs a trip to the sandbox's kernel:
    # what every child would do alike (RLIMIT_CORE, the working directory,
    # the stdio objects) the server did once, and a handler is set only
    # when the server's differs.
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for sig, want in ((signal.SIGTERM, signal.SIG_DFL), (signal.SIGINT, signal.default_int_handler)):
        if signal.getsignal(sig) != want:
            signal.signal(sig, want)
    signal.set_wakeup_fd(-1)
    _libc.prctl(4, 1, 0, 0, 0)  # dumpable again, as any process: its /proc files are its own
    # Memory: the address space may grow by the limit past what the
    # server had mapped (shared with the server until written).
    memory = int(req.get("memory", 256 << 20))
    resource.setrlimit(resource.RLIMIT_AS, (mapped + memory, mapped + memory))
    cpu = int(float(req.get("timeout", 30))) + 2  # a backstop; the server keeps the wall clock
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    procs = int(req.get("processes", 0))
    if procs:
        resource.setrlimit(resource.RLIMIT_NPROC, (procs, procs))
    try:
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
        try:
            os.write(fd, b"1000")  # the child, not the server, is what the OOM killer takes
        finally:
            os.close(fd)
    except OSError:
        pass
    for rel, text in (req.get("files") or {}).items():
        parent = os.path.dirname(rel)
        if parent:
            os.makedirs(parent, exist_ok=True)
        with open(rel, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    if req.get("files_b64"):
        import base64

        for rel, data in req["files_b64"].items():
            parent = os.path.dirname(rel)
            if parent:
                os.makedirs(parent, exist_ok=True)
            with open(rel, "wb") as f:
                f.write(base64.b64decode(data))
    sys.stdin, sys.stdout, sys.stderr = _stdio
    sys.argv = [""]
    limit = int(req.get("recursion_limit", 1000))
    sys.setrecursionlimit(limit)  # as read by sys.getrecursionlimit(), CPython's own


class _SetupFailed(Exception):
    pass


def _child(req, mapped, key):
    """Runs the snippet and writes its outcome, after key, to RESULT_FD;
    never returns."""
    import types

    name = "<snippet>"
    done = {"status": "ok"}
    try:
        try:
            _setup_child(req, mapped)
        except Exception as e:
            done = {"status": "error", "error": {"ename": type(e).__name__, "evalue": "the snippet's files or limits could not be set up: %s" % e, "traceback": []}}
            raise _SetupFailed
        code = req.get("code", "")
        import linecache

        linecache.cache[name] = (len(code), None, code.splitlines(True), name)
        main = types.ModuleType("__main__")
        main.__dict__["__builtins__"] = builtins
        sys.modules["__main__"] = main  # pickle finds the snippet's classes
        shell = _shell if req.get("shell") else None
        if shell is not None:
            # A fresh kernel's shell, its namespace the snippet's.
            shell["_ipy_shell"] = shell["_IPyShell"](main.__dict__)
            builtins.get_ipython = shell["get_ipython"]
        try:
            if req.get("program"):  # as `python file.py`: no value, no top-level await
                body, expr = compile(code, name, "exec", 0, dont_inherit=True), None
            else:
                body, expr = _value_split(code, name)
            _evaluate(body, main.__dict__)
            value = _evaluate(expr, main.__dict__) if expr is not None else None
            if value is not None:
                done["value"] = {"text": _cut(repr(value), int(req.get("max_output", 1 << 20)))}
        except SystemExit as e:
            done = {"status": "error", "error": {"ename": "SystemExit", "evalue": str(e.code if e.code is not None else ""),
                                                 "traceback": _frames(e.__traceback__, name)}}
        except BaseException as e:
            if shell is not None and isinstance(e, shell["UsageError"]):
                # As IPython shows it: the message, no traceback.
                done = {"status": "error", "error": {"ename": "UsageError", "evalue": str(e), "traceback": []}}
            else:
                done = {"status": "error", "error": _error(e, name)}
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except BaseException:
                pass
        body = _dumps(done, ensure_ascii=False).encode("utf-8", "surrogatepass")
    except BaseException as e:
        if not isinstance(e, _SetupFailed):
            done = {"status": "error", "error": {"ename": type(e).__name__, "evalue": "the snippet's result could not be reported: %s" % e, "traceback": []}}
        try:
            body = _dumps(done).encode()
        except BaseException:
            body = b""  # the server reports a child that ended without a result
    try:
        _write_all(RESULT_FD, key + body)
        # Closed before the exit, which first unmaps the address space:
        # the server can answer while that happens.
        _closerange(0, RESULT_FD + 1)
    finally:
        _exit(0)


# ---- in the server ------------------------------------------------------------


class Server:
    def __init__(self, proto_in, proto_out):
        self.proto_in = proto_in
        self.proto_out = proto_out
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.wake_w)
        signal.siginterrupt(signal.SIGCHLD, False)
        self.ipc = _IPC()
        self.statm = os.open("/proc/self/statm", os.O_RDONLY)  # read again with pread
        self.null = os.open(os.devnull, os.O_RDONLY)  # stdin without inputs
        self.max_fd = os.sysconf("SC_OPEN_MAX")

    def learn(self, req):
        """Imports modules the host saw snippets keep importing, so that
        their children find them loaded, as with a preload. A module that
        fails is reported and left; the reply counts the server's threads
        (a module that started one makes forking unsafe: the host then
        gives this server up)."""
        import gc
        import importlib

        done, failed = [], {}
        had = [m for m in req.get("modules") or [] if m in sys.modules]
        path = sys.path[:]
        sys.path[:] = [p for p in path if p not in ("", ".", WORKDIR)]  # never a snippet's file
        try:
            for m in req.get("modules") or []:
                if m in had:
                    continue
                try:
                    importlib.import_module(m)
                    done.append(m)
                except BaseException as e:  # SystemExit and the like too
                    failed[m] = "%s: %s" % (type(e).__name__, e)
        finally:
            sys.path[:] = path
            os.chdir(WORKDIR)
            signal.signal(signal.SIGCHLD, lambda *_: None)
            signal.set_wakeup_fd(self.wake_w)
            signal.siginterrupt(signal.SIGCHLD, False)
        gc.collect()
        gc.freeze()
        try:
            threads = len(os.listdir("/proc/self/task"))
        except OSError:
            import threading

            threads = threading.active_count()
        self._empty()  # what an import wrote under /tmp
        rss = int(os.pread(self.statm, 128, 0).split()[1]) * resource.getpagesize()
        return {"t": "imported", "id": req.get("id", 0), "modules": done, "had": had, "failed": failed, "threads": threads, "rss": rss}

    def run(self, req):
        timeout = float(req.get("timeout", 30))
        cap = int(req.get("max_output", 1 << 20))
        start = time.monotonic()
        stdin = self.null
        data = req.get("stdin")
        if data is None and req.get("inputs"):
            data = "\n".join(req["inputs"]) + "\n"
        if data:
            stdin = os.memfd_create("stdin") if hasattr(os, "memfd_create") else os.open(WORKDIR, os.O_TMPFILE | os.O_RDWR)
            _write_all(stdin, data.encode("utf-8", "surrogatepass"))
            os.lseek(stdin, 0, os.SEEK_SET)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        res_r, res_w = os.pipe()
        _reseed()
        key = os.urandom(KEY_BYTES)
        mapped = int(os.pread(self.statm, 128, 0).split()[0]) * resource.getpagesize()
        pid = os.fork()
        if pid == 0:
            try:
                for src, dst in ((stdin, 0), (out_w, 1), (err_w, 2)):
                    os.dup2(src, dst)
                os.dup2(res_w, RESULT_FD, inheritable=False)  # not for the snippet's subprocesses
                os.closerange(RESULT_FD + 1, self.max_fd)  # every other descriptor of the server
            finally:
                _child(req, mapped, key)
        for fd in (out_w, err_w, res_w) if stdin == self.null else (stdin, out_w, err_w, res_w):
            os.close(fd)
        streams = {out_r: bytearray(), err_r: bytearray(), res_r: bytearray()}
        # The result holds a value cut to cap and a short traceback; more
        # is a child writing junk there, which makes it a crash.
        keep = {out_r: cap + 4, err_r: cap + 4, res_r: 4 * cap + (1 << 20)}
        status, timed_out, cancelled, done = None, False, False, None
        watch = [out_r, err_r, res_r, self.wake_r]
        # Until the child has written everything (its pipes end, with a
        # result), exits or runs out of time.
        while status is None:
            if len(watch) == 1:
                done = self._result(streams[res_r], key)
                if done is not None:
                    break
            left = start + timeout - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for fd in select.select(watch + [self.proto_in], [], [], left)[0]:
                if fd == self.proto_in:
                    # Only a cancel comes while a snippet runs (or the end
                    # of the stream: the host is gone).
                    stop = _request(self.proto_in)
                    cancelled = cancelled or stop is None or stop.get("t") == "cancel" and stop.get("id") == req.get("id")
                elif fd == self.wake_r:
                    self._drain_wake()
                    got, st = os.waitpid(pid, os.WNOHANG)
                    if got:
                        status = st
                elif not self._read(fd, streams[fd], keep[fd]):
                    watch.remove(fd)
            if cancelled:
                break
        fetch = req.get("fetch")
        cleaned = done is None or bool(fetch)
        if cleaned:
            # No result (or files to read back, which nothing may change
            # while they are read): whatever is left is killed first, which
            # ends the pipes and tells how the child ended.
            status = self._kill_all(pid, status)
            self._drain(streams, keep)
            if cancelled:
                done = {"status": "interrupted"}
            elif done is None:
                done = self._outcome(req, streams[res_r], key, status, timed_out)
            if fetch:
                done["fetched"] = _fetch(fetch, int(req.get("fetch_max", 1 << 24)))
            self._empty()
        self._reply(req, done, streams, out_r, err_r)
        if not cleaned:
            self._clean()
        for fd in (out_r, err_r, res_r):
            os.close(fd)

    def _reply(self, req, done, streams, out_r, err_r):
        done.update(t="done", id=req.get("id", 0))
        msgs = [{"t": "out", "s": s, "d": streams[fd].decode("utf-8", "replace")} for s, fd in (("stdout", out_r), ("stderr", err_r)) if streams[fd]]
        _write_all(self.proto_out, b"".join(_frame(m) for m in msgs + [done]))

    def _drain(self, streams, keep):
        # Every writer is gone: the pipes end.
        for fd, buf in streams.items():
            while self._read(fd, buf, keep[fd]):
                pass

    @staticmethod
    def _result(data, key):
        """The outcome on the result channel: None when it is empty, a crash
        when it holds anything but the run's key and one result."""
        if not data:
            return None
        done = None
        if data[:KEY_BYTES] == key:
            try:
                done = json.loads(data[KEY_BYTES:].decode("utf-8", "surrogatepass"))
            except Exception:  # ValueError, RecursionError, MemoryError: never the server's end
                pass
        if isinstance(done, dict) and done.get("status") in ("ok", "error"):
            return done
        return _crashed("left %d bytes on the runtime's result channel that the runtime did not write" % len(data))

    def _drain_wake(self):
        try:
            while os.read(self.wake_r, 512):
                pass
        except BlockingIOError:
            pass

    @staticmethod
    def _read(fd, buf, keep):
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return True
        if not data:
            return False
        room = keep - len(buf)
        if room > 0:
            buf += data[:room]
        return True

    @classmethod
    def _outcome(cls, req, result, key, status, timed_out):
        if timed_out:
            return {"status": "timeout"}  # the host words it, with the limit
        done = cls._result(result, key)
        if done is not None and done["status"] != "crashed":
            return done
        # A child killed while it wrote its result is told by the signal.
        exit = {}
        if status is not None and os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig == signal.SIGXCPU:
                return {"status": "timeout"}
            why = "was killed by signal %d (%s)" % (sig, signal.Signals(sig).name)
            if sig == signal.SIGKILL:
                why += ", most likely for running out of memory (limit %d MiB)" % (int(req.get("memory", 0)) >> 20)
            exit = {"signal": sig}
        elif done is not None:
            return done
        elif status is not None:
            why = "exited with code %d before it finished" % os.WEXITSTATUS(status)
            exit = {"exit": os.WEXITSTATUS(status)}
        else:
            why = "ended without a result"
        return dict(_crashed(why), **exit)

    def _clean(self, child=0, status=None):
        """Kills every process but this one and empties the scratch
        directories: the next snippet starts from nothing. It returns the
        wait status of child, when it is reaped here."""
        status = self._kill_all(child, status)
        self._empty()
        return status

    def _kill_all(self, child=0, status=None):
        flags = 0
        while True:
            if flags == 0:
                try:
                    os.kill(-1, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    break
            # Every child that has ended is reaped before the next kill: one
            # kill per reaped process would walk the process table each time
            # (hundreds of them after a fork bomb).
            try:
                pid, st = os.waitpid(-1, flags)
            except ChildProcessError:
                flags = 0
                time.sleep(0.001)  # a process that is not our child yet
                continue
            if pid == 0:
                flags = 0
                continue
            flags = os.WNOHANG
            if pid == child and status is None:
                status = st
        return status

    def _empty(self):
        for d in SCRATCH:
            try:
                names = os.listdir(d)
            except OSError:
                continue
            for n in names:
                _remove(os.path.join(d, n))
        self.ipc.clean()
        self._drain_wake()


def _fetch(paths, budget):
    """The content of each path (relative to WORKDIR) that is a regular
    file reached without a symbolic link, base64-encoded, while the total
    stays within budget bytes. Every process of the snippet is gone."""
    import base64
    import stat

    out = {}
    for rel in paths:
        try:
            fd = _open_beneath(rel)
        except OSError:
            continue
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > budget:
                continue
            data = os.read(fd, st.st_size + 1)
            if len(data) > budget:
                continue
            budget -= len(data)
            out[rel] = base64.b64encode(data).decode("ascii")
        finally:
            os.close(fd)
    return out


def _open_beneath(rel):
    d = os.open(WORKDIR, os.O_RDONLY | os.O_DIRECTORY)
    try:
        parts = rel.split("/")
        for part in parts[:-1]:
            sub = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=d)
            os.close(d)
            d = sub
        return os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=d)
    finally:
        os.close(d)


def _crashed(why):
    return {"status": "crashed", "error": {"ename": "KernelCrashed", "evalue": "the snippet's process " + why, "traceback": []}}


def _reseed():
    """A fresh interpreter seeds its generators from the OS; a fork copies
    the server's state, so it is renewed for every child (random does it
    itself after a fork)."""
    nr = sys.modules.get("numpy.random")
    if nr is not None:
        # 128 bits from the OS, as four words: seeding from an array is
        # fast, numpy's own entropy gathering (seed()) is not.
        b = os.urandom(16)
        nr.seed([int.from_bytes(b[i : i + 4], "little") for i in range(0, 16, 4)])


def _remove(path):
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, onerror=_writable_and_retry)
        else:
            os.unlink(path)
    except OSError:
        pass


def _writable_and_retry(func, path, _exc):
    # A snippet can chmod its directories; they are still ours to empty.
    try:
        os.chmod(os.path.dirname(path) or path, 0o700)
        os.chmod(path, 0o700)
    except OSError:
        pass
    try:
        func(path)
    except OSError:
        pass


class _IPC:
    """Removes the System V IPC objects a snippet created: they outlive
    its processes. Linux lists them in /proc/sysvipc; gVisor has no such
    files, but counts its shared memory segments (SHM_INFO) and numbers
    them in order, so they are found from the last one removed. (gVisor
    counts neither message queues nor semaphore sets: those it keeps.)"""

    IPC_RMID, IPC_STAT, SHM_INFO = 0, 2, 14
    KINDS = (("shm", "shmctl"), ("msg", "msgctl"), ("sem", "semctl"))

    def __init__(self):
        self.listed = os.path.isdir("/proc/sysvipc")
        self.next_shm = 0
        try:
            import ctypes

            self.libc = ctypes.CDLL(None, use_errno=True)
            self.buf = ctypes.create_string_buffer(512)
        except (ImportError, OSError):
            self.libc = None

    def clean(self):
        if self.libc is None:
            return
        if self.listed:
            for kind, fn in self.KINDS:
                with open("/proc/sysvipc/" + kind) as f:
                    rows = f.read().splitlines()[1:]
                for row in rows:
                    ident = int(row.split()[1])
                    if kind == "sem":
                        self.libc.semctl(ident, 0, self.IPC_RMID, 0)
                    else:
                        getattr(self.libc, fn)(ident, self.IPC_RMID, None)
            return
        if self.libc.shmctl(0, self.SHM_INFO, self.buf) < 0:
            return
        used = int.from_bytes(self.buf.raw[:4], sys.byteorder)
        ident = self.next_shm
        while used > 0 and ident < self.next_shm + (1 << 16):
            if self.libc.shmctl(ident, self.IPC_STAT, self.buf) == 0:
                self.libc.shmctl(ident, self.IPC_RMID, None)
                used -= 1
                self.next_shm = ident + 1
            ident += 1


def _preload(modules):
    import importlib

    for m in modules:
        try:
            importlib.import_module(m)
        except BaseException as e:
            sys.stderr.write("backyard-ls fork server: --preload %s failed: %s: %s\n" % (m, type(e).__name__, e))
            sys.stderr.flush()
            os._exit(3)


def _make_stdio():
    """The child's stdio objects on descriptors 0, 1 and 2, made while
    those are pipes, as the child's are (so what they learn of them, such
    as that they cannot seek, holds in the child). The server never uses
    them: every child gets them unused."""
    import io

    saved = [os.dup(fd) for fd in (0, 1, 2)]
    r, w = os.pipe()
    for fd, end in ((0, r), (1, w), (2, w)):
        os.dup2(end, fd)
    os.close(r)
    os.close(w)
    stdio = (
        io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8"),
        io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", line_buffering=True),
        io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True),
    )
    for fd, old in zip((0, 1, 2), saved):
        os.dup2(old, fd)
        os.close(old)
    return stdio


def main():
    global _stdio
    _stdio = _make_stdio()
    proto_in, proto_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    os.chdir(WORKDIR)  # every child's working directory, and HOME
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # children inherit it
    global _shell_source
    parts = int(sys.argv[1])
    _shell_source = "".join(sys.argv[2 : 2 + parts])
    _preload(sys.argv[2 + parts :])
    # What every child needs, loaded once here.
    import ast, io, linecache, tokenize, traceback, types  # noqa: F401
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
    except (ImportError, OSError) as e:
        sys.stderr.write("backyard-ls fork server: the image's python3 has no working ctypes (%s)\n" % e)
        os._exit(3)
    # Not dumpable: a child (same user) can neither ptrace the server nor
    # read its memory, so it cannot leave anything in it for the next one.
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        sys.stderr.write("backyard-ls fork server: prctl(PR_SET_DUMPABLE) failed: errno %d\n" % ctypes.get_errno())
        os._exit(3)
    if os.getpid() != 1:
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans come to us
    global _libc
    _libc = libc
    _value_split("x = 1\nx;\n(x)", "<warm-up>")  # tokenize and compile cache their regexes on first use
    import gc

    gc.collect()
    gc.freeze()  # a child's collections never touch (and so copy) the server's objects
    server = Server(proto_in, proto_out)
    server._clean()
    _write_all(proto_out, _frame({"t": "ready", "protocol": PROTOCOL, "python": sys.version.split()[0], "pid": os.getpid()}))
    while True:
        req = _request(proto_in)
        if req is None:
            break
        if req.get("t") == "run":
            if req.get("shell"):
                _load_shell()
            server.run(req)
        elif req.get("t") == "import":
            _write_all(proto_out, _frame(server.learn(req)))
        elif req.get("t") == "cancel":
            pass  # its snippet had ended
        else:
            _write_all(proto_out, _frame({"t": "error", "id": req.get("id", 0), "message": "unknown request %r" % (req.get("t"),)}))


try:
    main()
except BaseException:
    import traceback

    sys.stderr.write("backyard-ls fork server failed:\n" + traceback.format_exc())
    sys.stderr.flush()
    os._exit(70)
