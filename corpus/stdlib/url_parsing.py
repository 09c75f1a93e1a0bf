# %% Taking URLs apart
from urllib.parse import urlparse, urlunparse, parse_qs, parse_qsl, urlencode, quote, unquote, urljoin, urlsplit
u = urlparse("https://user:pw@example.com:8443/path/to/page.html;params?q=python+3&lang=en&lang=fr#section-2")
u.scheme, u.netloc, u.hostname, u.port, u.path, u.query, u.fragment

# %% Query strings
parse_qs(u.query), parse_qsl(u.query)

# %% Building query strings
urlencode({"q": "café au lait", "page": 2, "tags": ["a b", "c"]}, doseq=True)

# %% Quoting
quote("a path/with spaces & ünïcode"), quote("/x y", safe=""), unquote("%E2%82%AC%2010")

# %% Relative URLs
base = "https://example.com/docs/guide/intro.html"
[urljoin(base, r) for r in ("setup.html", "../api/", "/about", "//cdn.example.com/x.js", "?v=2")]

# %% Replace a component
urlunparse(u._replace(query="", fragment="", netloc="example.com"))

# %% A list of links by host
links = ["http://a.com/x", "https://b.org/", "http://a.com/y?z=1", "ftp://files.a.com/f"]
from collections import defaultdict
hosts = defaultdict(list)
for l in links:
    s = urlsplit(l)
    hosts[s.hostname].append(s.path or "/")
dict(sorted(hosts.items()))

# %% Bad port
urlparse("http://example.com:99999/").port
