def __backyard_short_repr__(v, limit, safe):
    # repr(v), as CPython writes it, cut after limit characters with a
    # marker (…): containers are walked only as far as the cut, so a huge
    # or deep value costs about limit steps. A container met again inside
    # itself shows as CPython shows it ([...], {...}). With safe, an object
    # of another type shows as <T object> instead of calling its repr (which
    # could run forever). Runs on Monty and on CPython >= 3.8 alike.
    out = []
    size = [0]
    path = []
    cycle = {list: "[...]", tuple: "(...)", dict: "{...}", set: "set(...)", frozenset: "frozenset(...)"}

    def put(s):
        if size[0] <= limit:
            out.append(s)
            size[0] += len(s)

    def each(xs, show):
        # show(x) for each x of xs, with ", " between, up to the cut
        first = True
        for x in xs:
            if size[0] > limit:
                return
            if not first:
                put(", ")
            first = False
            show(x)

    def fields(x, names, depth):
        put(type(x).__name__ + "(")

        def field(name):
            put(name + "=")
            walk(getattr(x, name), depth)

        each(names, field)
        put(")")

    def walk(x, depth):
        if size[0] > limit:
            return
        if depth > 40:
            size[0] = limit + 1  # cut here: deeper than is worth showing
            return
        t = type(x)
        if t is str or t is bytes:
            put(repr(x[: max(limit + 2 - size[0], 0)]))
            return
        tuple_fields = isinstance(x, tuple) and hasattr(t, "_fields")
        dataclass_fields = hasattr(t, "__dataclass_fields__")
        if t in cycle or tuple_fields or dataclass_fields:
            if id(x) in path:
                put(cycle.get(t, "..."))
                return
            path.append(id(x))
            if tuple_fields:
                fields(x, t._fields, depth + 1)
            elif dataclass_fields:
                fs = x.__dataclass_fields__
                fields(x, [n for n in fs if fs[n].repr], depth + 1)
            elif t is dict:

                def pair(k):
                    walk(k, depth + 1)
                    put(": ")
                    walk(x[k], depth + 1)

                put("{")
                each(x, pair)
                put("}")
            elif t is not list and t is not tuple and len(x) == 0:
                put(t.__name__ + "()")  # set(), frozenset()
            else:

                def item(e):
                    walk(e, depth + 1)

                ends = {list: ("[", "]"), tuple: ("(", ",)" if len(x) == 1 else ")"), set: ("{", "}")}
                open_, close = ends.get(t, ("frozenset({", "})"))
                put(open_)
                each(x, item)
                put(close)
            path.pop()
            return
        if safe and not (x is None or t is bool or t is int or t is float or t is complex):
            put("<" + t.__name__ + " object>")
            return
        try:
            put(repr(x))
        except Exception as e:
            put("<repr failed: " + type(e).__name__ + ">")

    walk(v, 0)
    s = "".join(out)
    if size[0] > limit:
        return s[:limit] + "\u2026"
    return s
