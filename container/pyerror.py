# Exceptions as records: the part of the in-container programs (the
# driver, the fork server) that turns an exception into what the host
# renders as CPython does (frames with spans, notes, cause or context,
# group members). Stdlib-only Python >= 3.8; the programs' source follows.

import builtins

MAX_FRAMES = 30


def _frames(tb, cell_file):
    import traceback

    # The program's own frames (the driver's or the fork server's: it runs
    # as "<string>", like code a cell exec()s, so they are told by their
    # globals) are left out; the cell's start at its file.
    drv = globals()
    tbs = []
    while tb is not None:
        if tb.tb_frame.f_globals is not drv:
            tbs.append(tb)
        tb = tb.tb_next
    entries = traceback.StackSummary.extract((t.tb_frame, t.tb_lineno) for t in tbs)
    for i, f in enumerate(entries):
        if f.filename == cell_file or f.filename.startswith("<cell-"):
            entries, tbs = entries[i:], tbs[i:]
            break
    out = []
    for i, f in enumerate(entries):
        if len(entries) > MAX_FRAMES:
            if i == MAX_FRAMES // 2:
                out.append({"line": 0, "name": "...", "text": "[%d frames omitted]" % (len(entries) - MAX_FRAMES)})
            if MAX_FRAMES // 2 <= i < len(entries) - MAX_FRAMES // 2:
                continue
        text = (f.line or "").strip()
        if f.filename == cell_file:
            fr = {"line": f.lineno, "name": f.name, "text": text}
            _span(fr, f, tbs[i])
            out.append(fr)
        elif f.filename.startswith("<cell-"):
            out.append({"line": 0, "name": f.name, "text": "cell %s:%s: %s" % (f.filename[6:-1], f.lineno, text)})
        else:
            out.append({"line": 0, "name": f.name, "text": text, "file": f.filename, "file_line": f.lineno or 0})
    return out


def _span(fr, f, tb):
    """Adds the span CPython's traceback marks (3.11+: the instruction's
    byte offsets) as code point columns of the cell's lines."""
    import linecache

    positions = getattr(tb.tb_frame.f_code, "co_positions", None)
    if positions is None or tb.tb_lasti < 0:
        return
    for i, pos in enumerate(positions()):
        if i == tb.tb_lasti // 2:
            break
    else:
        return
    line, end_line, col, end_col = pos
    if line != f.lineno or end_line is None or col is None or end_col is None:
        return

    def chars(lineno, offset):
        raw = linecache.getline(f.filename, lineno).encode("utf-8", "surrogatepass")
        return len(raw[:offset].decode("utf-8", "replace"))

    fr["col"], fr["end_line"], fr["end_col"] = chars(f.lineno, col), end_line, chars(end_line, end_col)


MAX_GROUP_WIDTH = 15  # members of a group CPython's traceback prints
MAX_ERRORS = 64  # exceptions one record carries: chains and group members together


def _safe(value, what, func=str):
    """str() (or func) of value, as CPython's traceback prints one that
    raises."""
    try:
        return func(value)
    except BaseException:  # noqa: B036 - whatever __str__ raises
        return "<%s %s() failed>" % (what, func.__name__)


def _error(e, cell_file, seen=None, budget=None):
    """The record of exception e: its type, message and frames, its notes,
    the cause or context CPython prints before it and an exception group's
    members, each in turn (cycles cut, at most MAX_ERRORS in all)."""
    if seen is None:
        seen, budget = set(), [MAX_ERRORS]
    seen.add(id(e))
    budget[0] -= 1
    ev = "" if isinstance(e, KeyboardInterrupt) else _safe(e, "exception")
    frames = _frames(e.__traceback__, cell_file)
    if isinstance(e, SyntaxError) and e.filename == cell_file:
        ev = _safe(e.msg, "exception") if e.msg else ev
        fr = {"line": e.lineno or 0, "name": "<module>", "text": (e.text or "").strip()}
        if e.lineno and isinstance(e.offset, int) and e.offset > 0:
            # offset and end_offset are 1-based code point columns; the
            # span is at least one character, as CPython's caret.
            end = e.end_offset if isinstance(e.end_offset, int) and e.end_offset > e.offset and (e.end_lineno or e.lineno) == e.lineno else e.offset + 1
            fr["col"], fr["end_line"], fr["end_col"] = e.offset - 1, e.lineno, end - 1
        frames.append(fr)
    rec = {"ename": type(e).__name__, "evalue": ev, "traceback": frames}
    try:
        notes = getattr(e, "__notes__", None)
    except BaseException as x:  # noqa: B036
        notes = ["Ignored error getting __notes__: %s" % _safe(x, "__notes__", repr)]
    if notes is not None:
        if isinstance(notes, (list, tuple)):
            rec["notes"] = [_safe(n, "note") for n in notes]
        else:
            rec["notes"] = [_safe(notes, "__notes__", repr)]
    cause, context = e.__cause__, e.__context__
    if cause is not None and id(cause) not in seen and budget[0] > 0:
        rec["cause"] = _error(cause, cell_file, seen, budget)
    elif cause is None and context is not None and not e.__suppress_context__ and id(context) not in seen and budget[0] > 0:
        rec["context"] = _error(context, cell_file, seen, budget)
    members = getattr(e, "exceptions", None) if _is_group(e) else None
    if members:
        rec["exceptions"] = []
        for m in members[:MAX_GROUP_WIDTH]:
            if budget[0] <= 0 or id(m) in seen:
                break
            rec["exceptions"].append(_error(m, cell_file, seen, budget))
        if len(members) > len(rec["exceptions"]):
            rec["more_exceptions"] = len(members) - len(rec["exceptions"])
    return rec


def _is_group(e):
    group = getattr(builtins, "BaseExceptionGroup", None)
    return group is not None and isinstance(e, group)
