# %% Log lines
log = """\
2024-05-01 10:00:01 INFO  web  request GET /index.html 200 12ms
2024-05-01 10:00:02 INFO  web  request GET /api/users 200 48ms
2024-05-01 10:00:02 WARN  db   slow query took 950ms
2024-05-01 10:00:03 ERROR web  request POST /api/login 500 3ms
2024-05-01 10:00:05 INFO  web  request GET /api/users 200 51ms
2024-05-01 10:00:07 ERROR db   connection reset by peer
2024-05-01 10:00:09 INFO  web  request GET /static/app.js 304 1ms
"""
lines = log.splitlines()
len(lines)

# %% Parse with a regex
import re
pat = re.compile(r"^(?P<date>\S+) (?P<time>\S+) (?P<level>\w+)\s+(?P<svc>\w+)\s+(?P<msg>.*)$")
entries = [pat.match(l).groupdict() for l in lines]
entries[2]

# %% Count by level
from collections import Counter
Counter(e["level"] for e in entries)

# %% Requests
req = re.compile(r"request (GET|POST) (\S+) (\d{3}) (\d+)ms")
requests = [req.search(e["msg"]).groups() for e in entries if "request" in e["msg"]]
for method, path, status, ms in requests:
    print(f"{method:4} {path:<18} {status} {int(ms):4d}ms")

# %% Mean latency per path
from collections import defaultdict
lat = defaultdict(list)
for _m, path, _s, ms in requests:
    lat[path].append(int(ms))
{p: sum(v) / len(v) for p, v in sorted(lat.items())}

# %% Errors only
errors = [f"{e['time']} {e['svc']}: {e['msg']}" for e in entries if e["level"] == "ERROR"]
print("\n".join(errors))

# %% Status code classes
Counter(f"{s[0]}xx" for _, _, s, _ in requests).most_common()

# %% Redact paths
re.sub(r"/api/\w+", "/api/<redacted>", lines[1])
