# %% Validating and extracting with regular expressions
import re
EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(\.[\w-]+)+$")
emails = ["ann@example.com", "bob.smith+news@mail.co.uk", "bad@", "@bad.com", "sp ace@x.io", "ü@münchen.de"]
{e: bool(EMAIL.match(e)) for e in emails}

# %% Phone numbers normalised
phones = ["(555) 123-4567", "555.123.4567", "+1 555 123 4567", "5551234567", "123-45"]
def norm(p):
    digits = re.sub(r"\D", "", p)
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    return f"({digits[:3]}) {digits[3:6]}-{digits[6:]}" if len(digits) == 10 else None
[norm(p) for p in phones]

# %% Named groups on dates
text = "Invoices: 2024-01-15 paid, 2024-02-29 due, 2023-13-01 invalid."
for m in re.finditer(r"(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})", text):
    ok = 1 <= int(m["m"]) <= 12
    print(m.group(0), m.span(), m.groupdict(), "ok" if ok else "bad month")

# %% Substitution with a function
def double(m):
    return str(int(m.group()) * 2)

re.sub(r"\d+", double, "3 apples and 12 pears")

# %% Swapping with backreferences
re.sub(r"(\w+), (\w+)", r"\2 \1", "Lovelace, Ada; Hopper, Grace")

# %% Split on several delimiters
re.split(r"[;,\s]\s*", "a, b;c  d,e"), re.split(r"(-)", "1-2-3")

# %% Flags: verbose, ignorecase, multiline
pat = re.compile(r"""
    ^(?P<key>[a-z_]+)   # a key
    \s*=\s*
    (?P<val>.*)$        # the rest
""", re.X | re.I | re.M)
[m.groups() for m in pat.finditer("Name = demo\nDEBUG=true\n# comment\nport= 80")]

# %% Lookahead: password rules
def strong(pw):
    return bool(re.fullmatch(r"(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*\W).{8,}", pw))
[strong(p) for p in ("abc", "Passw0rd!", "password1!", "PASSWORD1a")]

# %% A broken pattern
re.compile(r"(unclosed")

# %% subn counts replacements
re.subn(r"\s+", " ", "too    many   spaces\there")
