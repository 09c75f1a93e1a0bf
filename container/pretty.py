# The text/plain of a value as IPython's displayhook and display() make it
# (IPython.lib.pretty with IPython's defaults): 79 columns, a container too
# wide breaks after each item, at most 1000 items, sets sorted, dicts in
# their order, _repr_pretty_ methods, [...] for a cycle. Its layout
# reproduces IPython's exactly, down to the order it breaks groups in.

from collections import deque as _pp_deque  # loaded at start anyway (json, re, functools)


class _PPGroup:
    __slots__ = ("depth", "breakables", "want_break")

    def __init__(self, depth):
        self.depth, self.breakables, self.want_break = depth, _pp_deque(), False


class _PPText:
    __slots__ = ("parts", "width")

    def __init__(self):
        self.parts, self.width = [], 0


class _PPBreak:
    __slots__ = ("sep", "width", "indentation", "group")

    def __init__(self, sep, indentation, group):
        self.sep, self.width, self.indentation, self.group = sep, len(sep), indentation, group


class _PPWith:
    __slots__ = ("enter", "exit")

    def __init__(self, enter, exit):
        self.enter, self.exit = enter, exit

    def __enter__(self):
        self.enter()

    def __exit__(self, *exc):
        self.exit()


class _PPRaw:
    """Shown as its text (IPython's RawText)."""

    def __init__(self, text):
        self.text = text

    def _repr_pretty_(self, p, cycle):
        p.text(self.text)


class _Pretty:
    """The printer a _repr_pretty_(p, cycle) method is given."""

    def __init__(self, float_format=None, max_width=79, max_seq_length=1000, user=True):
        self.float_format, self.max_width, self.max_seq_length = float_format, max_width, max_seq_length
        self.user = user  # the printers a cell registered (for_type) apply
        self.verbose, self.newline, self.stack, self.out = False, "\n", [], []
        self.output_width = self.buffer_width = self.indentation = 0
        self.buffer = _pp_deque()
        root = _PPGroup(0)
        self.group_stack, self.group_queue = [root], [[root]]

    # The layout: texts and breakables wait in the buffer until the line is
    # full; then the outermost groups (the oldest first at each depth) break.
    def _deq(self):
        for stack in self.group_queue:
            for idx, group in enumerate(reversed(stack)):
                if group.breakables:
                    del stack[idx]  # as IPython: counted from the end, deleted from the start
                    group.want_break = True
                    return group
            for group in stack:
                group.want_break = True
            del stack[:]
        return None

    def _remove(self, group):
        try:
            self.group_queue[group.depth].remove(group)
        except ValueError:
            pass

    def _put(self, x, col):
        if x.__class__ is _PPText:
            self.out.extend(x.parts)
            return col + x.width
        g = x.group
        g.breakables.popleft()
        if g.want_break:
            self.out.append(self.newline + " " * x.indentation)
            return x.indentation
        if not g.breakables:
            self._remove(g)
        self.out.append(x.sep)
        return col + x.width

    def _break_one_group(self, group):
        buf = self.buffer
        while group.breakables:
            x = buf.popleft()
            self.output_width = self._put(x, self.output_width)
            self.buffer_width -= x.width
        while buf and buf[0].__class__ is _PPText:
            x = buf.popleft()
            self.output_width = self._put(x, self.output_width)
            self.buffer_width -= x.width

    def _break_outer_groups(self):
        while self.max_width < self.output_width + self.buffer_width:
            group = self._deq()
            if not group:
                return
            self._break_one_group(group)

    def _newline(self):
        self.flush()
        self.out.append(self.newline + " " * self.indentation)
        self.output_width, self.buffer_width = self.indentation, 0

    def text(self, obj):
        width = len(obj)
        if self.buffer:
            t = self.buffer[-1]
            if t.__class__ is not _PPText:
                t = _PPText()
                self.buffer.append(t)
            t.parts.append(obj)
            t.width += width
            self.buffer_width += width
            self._break_outer_groups()
        else:
            self.out.append(obj)
            self.output_width += width

    def breakable(self, sep=" "):
        group = self.group_stack[-1]
        if group.want_break:
            self._newline()
        else:
            b = _PPBreak(sep, self.indentation, group)
            group.breakables.append(b)
            self.buffer.append(b)
            self.buffer_width += b.width
            self._break_outer_groups()

    def break_(self):
        group = self._deq()
        if group:
            self._break_one_group(group)
        self._newline()

    def begin_group(self, indent=0, open=""):
        if open:
            self.text(open)
        group = _PPGroup(self.group_stack[-1].depth + 1)
        self.group_stack.append(group)
        while group.depth >= len(self.group_queue):
            self.group_queue.append([])
        self.group_queue[group.depth].append(group)
        self.indentation += indent

    def end_group(self, dedent=0, close=""):
        self.indentation -= dedent
        group = self.group_stack.pop()
        if not group.breakables:
            self._remove(group)
        if close:
            self.text(close)

    def group(self, indent=0, open="", close=""):
        return _PPWith(lambda: self.begin_group(indent, open), lambda: self.end_group(indent, close))

    def _dent(self, n):
        self.indentation += n

    def indent(self, indent):
        return _PPWith(lambda: self._dent(indent), lambda: self._dent(-indent))

    def flush(self):
        for x in self.buffer:
            self.output_width += self._put(x, self.output_width)  # sic: as IPython
        self.buffer.clear()
        self.buffer_width = 0

    def _enumerate(self, seq):
        for idx, x in enumerate(seq):
            if self.max_seq_length and idx >= self.max_seq_length:
                self.text(",")
                self.breakable()
                self.text("...")
                return
            yield idx, x

    # What prints an object: a printer of its class or of one it derives
    # from, else the first class that has _repr_pretty_ or __repr__.
    def pretty(self, obj):
        oid = id(obj)
        cycle = oid in self.stack
        self.stack.append(oid)
        self.begin_group()
        try:
            if obj is None or obj is True or obj is False or obj is Ellipsis or obj is NotImplemented:
                return self._repr(obj)
            cls = _pp_getattr(obj, "__class__") or type(obj)
            printers = _pp_printers()
            for c in _pp_getattr(cls, "__mro__") or (cls,):
                if self.user and (_PP_USER or _PP_USER_BY_NAME):
                    u = _PP_USER.get(c) or _PP_USER_BY_NAME.get((_pp_getattr(c, "__module__"), _pp_getattr(c, "__name__")))
                    if u is not None:
                        return u(obj, self, cycle)
                f = printers.get(c) or _PP_BY_NAME.get((_pp_getattr(c, "__module__"), _pp_getattr(c, "__name__")))
                if f is not None:
                    return f(self, obj, cycle)
                d = _pp_getattr(c, "__dict__") or {}
                if "_repr_pretty_" in d:
                    meth = c._repr_pretty_
                    if callable(meth):
                        return meth(obj, self, cycle)
                if c is not object and "__repr__" in d and callable(_pp_getattr(c, "__repr__")):
                    return self._repr(obj)
            return _pp_default(self, obj, cycle)
        finally:
            self.end_group()
            self.stack.pop()

    def _repr(self, obj):
        self.begin_group()
        for i, line in enumerate(repr(obj).splitlines()):
            if i:
                self.break_()
            self.text(line)
        self.end_group()


def _pp_getattr(obj, name):
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def _pretty_text(obj, float_format=None, user=True):
    """IPython's text/plain of obj (float_format: %precision's; user: with
    the printers cells registered, as the shell's formatter has them)."""
    p = _Pretty(float_format, user=user)
    p.pretty(obj)
    p.flush()
    return "".join(p.out)


def _pp_call(p, name, args, kwargs=()):
    """As IPython's CallExpression(name, *args, **kwargs) is shown."""
    p.begin_group()
    prefix = name + "("
    p.begin_group(len(prefix), prefix)
    started = False
    for a in args:
        if started:
            p.text(",")
            p.breakable()
        started = True
        p.pretty(a)
    for k, v in kwargs:
        if started:
            p.text(",")
            p.breakable()
        started = True
        p.begin_group(len(k) + 1, k + "=")
        p.pretty(v)
        p.end_group(len(k) + 1)
    p.end_group(len(prefix), ")")
    p.end_group()


def _pp_items(p, start, items, end, each=None, last=""):
    """The body of every container's printer: start, the items (each shown
    by each, else pretty-printed) with a comma and a breakable between, at
    most max_seq_length of them, then last and end."""
    p.begin_group(len(start), start)
    for i, x in p._enumerate(items):
        if i:
            p.text(",")
            p.breakable()
        if each is None:
            p.pretty(x)
        else:
            each(x)
    if last:
        p.text(last)
    p.end_group(len(start), end)


def _pp_seq(start, end):
    def show(p, obj, cycle):
        if cycle:
            return p.text(start + "..." + end)
        _pp_items(p, start, obj, end, last="," if len(obj) == 1 and isinstance(obj, tuple) else "")

    return show


def _pp_set(start, end):
    def show(p, obj, cycle):
        if cycle:
            return p.text(start + "..." + end)
        if len(obj) == 0:
            return p.text(type(obj).__name__ + "()")
        items = obj
        if not (p.max_seq_length and len(obj) >= p.max_seq_length):
            items = list(obj)
            try:
                items = sorted(items)
            except Exception:
                try:
                    items = sorted(items, key=str)
                except Exception:
                    pass
        _pp_items(p, start, items, end)

    return show


def _pp_dict(start, end):
    def show(p, obj, cycle):
        if cycle:
            return p.text("{...}")

        def item(key):
            p.pretty(key)
            p.text(": ")
            p.pretty(obj[key])

        _pp_items(p, start, obj.keys(), end, item)

    return show


def _pp_float(p, obj, cycle):
    p.text(p.float_format % obj if p.float_format else repr(obj))


def _pp_type(p, obj, cycle):
    for m in _pp_getattr(type(obj), "__mro__") or ():
        if "__repr__" in vars(m):
            if m is not type:  # a metaclass's own __repr__ (an Enum's)
                return p._repr(obj)
            break
    mod = _pp_getattr(obj, "__module__")
    name = _pp_getattr(obj, "__qualname__")
    if not isinstance(name, str):
        name = _pp_getattr(obj, "__name__")
        if not isinstance(name, str):
            name = "<unknown type>"
    p.text(name if mod in (None, "__builtin__", "builtins", "exceptions") else mod + "." + name)


def _pp_function(p, obj, cycle):
    name = _pp_getattr(obj, "__qualname__") or obj.__name__
    mod = obj.__module__
    if mod and mod not in ("__builtin__", "builtins", "exceptions"):
        name = mod + "." + name
    try:
        import inspect

        name += str(inspect.signature(obj))
    except Exception:
        pass
    p.text("<function %s>" % name)


def _pp_exception(p, obj, cycle):
    cls = obj.__class__
    name = getattr(cls, "__qualname__", cls.__name__)
    if cls.__module__ not in ("exceptions", "builtins"):
        name = cls.__module__ + "." + name
    _pp_call(p, name, getattr(obj, "args", ()))


def _pp_super(p, obj, cycle):
    p.begin_group(8, "<super: ")
    p.pretty(obj.__thisclass__)
    p.text(",")
    p.breakable()
    p.pretty(obj.__self__)
    p.end_group(8, ">")


def _pp_pattern(p, obj, cycle):
    r = repr(obj.pattern)
    r = ("ur" + r[1:] if r[:1] in "uU" else "r" + r).replace("\\\\", "\\")
    args = [_PPRaw(r)]
    if obj.flags:
        import re

        names = ("IGNORECASE", "LOCALE", "MULTILINE", "DOTALL", "UNICODE", "VERBOSE", "DEBUG")
        args.append(_PPRaw("|".join("re." + n for n in names if obj.flags & getattr(re, n))))
    _pp_call(p, "re.compile", args)


def _pp_namespace(p, obj, cycle):
    if cycle:
        return _pp_call(p, "namespace", [_PPRaw("...")])
    _pp_call(p, "namespace", [], list(obj.__dict__.items()))


def _pp_default(p, obj, cycle):
    klass = _pp_getattr(obj, "__class__") or type(obj)
    if _pp_getattr(klass, "__repr__") is not object.__repr__:
        return p._repr(obj)
    p.begin_group(1, "<")
    p.pretty(klass)
    p.text(" at 0x%x" % id(obj))
    if cycle:
        p.text(" ...")
    p.end_group(1, ">")


def _pp_collection(show):
    """A printer of a collections class: its name called with what show
    gives (args, kwargs), or with ... in a cycle."""

    def printer(p, obj, cycle):
        name = obj.__class__.__name__
        if cycle:
            return _pp_call(p, name, [_PPRaw("...")])
        _pp_call(p, name, *show(obj))

    return printer


_PP_BY_NAME = {
    ("collections", "defaultdict"): _pp_collection(lambda o: ([o.default_factory, dict(o)], ())),
    ("collections", "OrderedDict"): _pp_collection(lambda o: ([list(o.items())] if len(o) else [], ())),
    ("collections", "deque"): _pp_collection(lambda o: ([list(o)], [("maxlen", o.maxlen)] if o.maxlen is not None else ())),
    ("collections", "Counter"): _pp_collection(lambda o: ([dict(o.most_common())] if len(o) else [], ())),
    ("collections", "UserList"): _pp_collection(lambda o: ([o.data], ())),
    ("re", "Pattern"): _pp_pattern,
}

_PP_PRINTERS = None

# The printers cells registered with the text/plain formatter's for_type
# (by class) and for_type_by_name (by module and name): f(obj, p, cycle).
_PP_USER = {}
_PP_USER_BY_NAME = {}


def _pp_printers():
    """The printers by class (made on first use: no imports at start)."""
    global _PP_PRINTERS
    if _PP_PRINTERS is None:
        import os
        import types

        d = {float: _pp_float, tuple: _pp_seq("(", ")"), list: _pp_seq("[", "]"), dict: _pp_dict("{", "}"),
             set: _pp_set("{", "}"), frozenset: _pp_set("frozenset({", "})"), super: _pp_super, type: _pp_type,
             types.FunctionType: _pp_function, types.BuiltinFunctionType: _pp_function,
             types.SimpleNamespace: _pp_namespace, BaseException: _pp_exception,
             types.MappingProxyType: _pp_dict("mappingproxy({", "})")}
        if type(os.environ) is not dict:
            d[type(os.environ)] = _pp_dict("environ{", "}")
        _PP_PRINTERS = d
    return _PP_PRINTERS
