# %% Render rows as a Markdown table
rows = [
    {"language": "Python", "year": 1991, "typing": "dynamic", "score": 9.25},
    {"language": "Go", "year": 2009, "typing": "static", "score": 8.5},
    {"language": "Rust", "year": 2010, "typing": "static", "score": 8.75},
    {"language": "Lua", "year": 1993, "typing": "dynamic", "score": 7.0},
]

def md_table(rows, align=None):
    cols = list(rows[0])
    align = align or {}
    cells = [[str(r[c]) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    def fmt(values):
        return "| " + " | ".join(
            v.rjust(w) if align.get(c) == "right" else v.ljust(w)
            for v, w, c in zip(values, widths, cols)) + " |"
    sep = "|" + "|".join(("-" * (w + 1) + ":") if align.get(c) == "right" else "-" * (w + 2)
                        for w, c in zip(widths, cols)) + "|"
    return "\n".join([fmt(cols), sep] + [fmt(r) for r in cells])

print(md_table(rows, {"year": "right", "score": "right"}))

# %% Sorted by score
print(md_table(sorted(rows, key=lambda r: -r["score"])))

# %% Column widths
[max(len(str(r[c])) for r in rows) for c in rows[0]]

# %% A CSV line per row
"\n".join(",".join(str(v) for v in r.values()) for r in rows)

# %% Empty input fails
md_table([])
