"""Replays a recorded sequence of pretty-printer primitives (text,
breakable, break, indent, begin, end) on a printer with IPython's
interface: scripts/record-pretty.py on IPython's, container/pretty.py's
test on the stand-in."""


def replay(p, seq):
    for o in seq:
        if o[0] == "text":
            p.text(o[1])
        elif o[0] == "breakable":
            p.breakable(o[1])
        elif o[0] == "break":
            p.break_()
        elif o[0] == "indent":
            p.indentation += o[1]
        elif o[0] == "begin":
            p.begin_group(o[1], o[2])
        else:
            p.end_group(o[1], o[2])
    p.flush()
