# %% [markdown]
# Differential cells: the re module.

# %% re-search-group
import re
m = re.search(r"(\d+)-(\d+)", "call 555-1234 now")
m.group(0), m.group(1), m.groups(), m.span(), m.start(2)

# %% re-match-vs-search
import re
re.match(r"\d", "a1") is None, re.search(r"\d", "a1").group()

# %% re-fullmatch
import re
bool(re.fullmatch(r"[a-z]+", "abc")), bool(re.fullmatch(r"[a-z]+", "abc1"))

# %% re-findall-groups
import re
re.findall(r"\d+", "a1b22c333"), re.findall(r"(\w)=(\d)", "a=1, b=2"), re.findall(r"(\d)", "x")

# %% re-finditer
import re
[(m.group(), m.start()) for m in re.finditer(r"o", "foo boo")]

# %% re-sub-string
import re
re.sub(r"\s+", "-", "a  b   c")

# %% re-sub-backreference
import re
re.sub(r"(\w+)@(\w+)", r"\2 at \1", "me@home you@work")

# %% re-sub-named-backreference
import re
re.sub(r"(?P<first>\w+) (?P<last>\w+)", r"\g<last>, \g<first>", "Ada Lovelace")

# %% re-sub-callable
import re
re.sub(r"\d+", lambda m: str(int(m.group()) + 1), "v1.9.41")

# %% re-sub-callable-named-function
import re
def upper(m):
    return m.group(0).upper()
re.sub(r"\b\w", upper, "hello big world")

# %% re-sub-callable-groups
import re
re.sub(r"(\w+)=(\d+)", lambda m: f"{m[1]}:{int(m[2]) * 2}", "a=1 b=20")

# %% re-sub-count
import re
re.sub("a", "b", "aaaa", count=2)

# %% re-subn
import re
re.subn(r"\d", "#", "a1b2c3")

# %% re-compiled-sub-callable
import re
pat = re.compile(r"\$(\w+)")
env = {"USER": "ann", "HOME": "/home/ann"}
pat.sub(lambda m: env.get(m.group(1), m.group(0)), "$USER lives in $HOME, not $NOPE")

# %% re-split
import re
re.split(r"\W+", "words, and more: words!"), re.split(r"(\d)", "a1b2c"), re.split(r",", "a,b,c", maxsplit=1)

# %% re-named-groups-groupdict
import re
m = re.match(r"(?P<key>\w+):\s*(?P<value>.+)", "Host: example.com")
m.groupdict(), m["key"], m.group("value")

# %% re-optional-group-none
import re
re.match(r"(a)(b)?", "a").groups(), re.match(r"(a)(b)?", "a").groups(default="-")

# %% re-ignorecase
import re
re.findall(r"python", "Python PYTHON python", re.IGNORECASE)

# %% re-multiline-anchors
import re
re.findall(r"^\w+", "one two\nthree four\nfive", re.M)

# %% re-dotall
import re
re.search(r"a.b", "a\nb") is None, re.search(r"a.b", "a\nb", re.S).group()

# %% re-verbose
import re
pat = re.compile(r"""
    (\d{3})   # area
    [-.\s]?
    (\d{4})   # number
""", re.VERBOSE)
pat.search("call 555 1234").groups()

# %% re-non-greedy
import re
re.findall(r"<.+?>", "<a><b></b></a>"), re.findall(r"<.+>", "<a><b>")

# %% re-lookahead-lookbehind
import re
re.findall(r"\w+(?=@)", "ann@x bob@y"), re.findall(r"(?<=\$)\d+", "cost $30 and $45"), re.findall(r"\d+(?!px)\b", "10px 20em 30")

# %% re-backreference-in-pattern
import re
re.findall(r"\b(\w+) \1\b", "the the cat sat sat down")

# %% re-unicode-word
import re
re.findall(r"\w+", "naïve café 東京 x_1")

# %% re-ascii-flag
import re
re.findall(r"\w+", "naïve café", re.ASCII)

# %% re-escape
import re
re.escape("a.b*c?(d)"), bool(re.search(re.escape("1+1"), "is 1+1=2"))

# %% re-match-object-repr
import re
re.match(r"ab", "abc")

# %% re-pattern-repr
import re
re.compile(r"\d+", re.I)

# %% re-expand
import re
m = re.match(r"(\w+) (\w+)", "hello world")
m.expand(r"\2 \1")

# %% re-lastindex-lastgroup
import re
m = re.match(r"(?P<a>x)(?P<b>y)?", "xy")
m.lastindex, m.lastgroup

# %% re-error-unbalanced
import re
re.compile(r"(abc")

# %% re-error-bad-escape
import re
re.compile(r"\p")

# %% re-error-nothing-to-repeat
import re
re.compile(r"*a")

# %% re-sub-bad-group-reference
import re
re.sub(r"(a)", r"\2", "a")

# %% re-findall-overlapping-with-lookahead
import re
re.findall(r"(?=(aa))", "aaaa")

# %% re-conditional-and-atomic
import re
re.findall(r"(<)?\w+(?(1)>)", "<a> b <c"), re.findall(r"(?>a+)b", "aaab")

# %% re-possessive-quantifier
import re
re.findall(r"a++b", "aaab ab b")

# %% re-scanner-tokens
import re
tokens = re.compile(r"(?P<num>\d+)|(?P<op>[+*/-])|(?P<ws>\s+)")
[(m.lastgroup, m.group()) for m in tokens.finditer("12 + 3*4") if m.lastgroup != "ws"]

# %% re-purge-cache-and-flags-value
import re
re.purge()
int(re.I), int(re.M | re.S)

# %% re-sub-empty-matches
import re
re.sub(r"x*", "-", "abc")

# %% re-split-empty-matches
import re
re.split(r"\b", "a b")
