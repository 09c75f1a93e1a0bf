# %% A paragraph to lay out
import textwrap
para = ("The quick brown fox jumps over the lazy dog. Pack my box with five dozen "
        "liquor jugs. How vexingly quick daft zebras jump! Sphinx of black quartz, "
        "judge my vow.")
print(textwrap.fill(para, width=40))

# %% Wrapped lines
textwrap.wrap(para, width=30)[:3]

# %% Indent and dedent
block = """
    def hello():
        return "hi"
"""
print(textwrap.dedent(block).strip())
print(textwrap.indent("one\ntwo", "> "))

# %% Shorten
textwrap.shorten(para, width=50, placeholder=" [...]")

# %% A boxed note
def boxed(text, width=30):
    lines = textwrap.wrap(text, width)
    w = max(map(len, lines))
    top = "+" + "-" * (w + 2) + "+"
    body = [f"| {l.ljust(w)} |" for l in lines]
    return "\n".join([top, *body, top])

print(boxed("Remember to back up the database before the migration on Friday."))

# %% String methods
s = "  Hello, World  "
s.strip(), s.lower().strip(), s.split(","), s.strip().center(20, "*")

# %% Title case vs capitalize
"o'neil and mcdonald's".title(), "hello world".capitalize(), "ß".upper()

# %% Justified columns
items = [("apples", 3), ("kiwis", 12), ("watermelons", 1)]
for name, n in items:
    print(name.ljust(12, "."), str(n).rjust(4))
