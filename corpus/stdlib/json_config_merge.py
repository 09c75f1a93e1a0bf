# %% [markdown]
# Merge a default configuration with user overrides.

# %% Defaults and overrides
import json
defaults = json.loads("""
{"server": {"host": "localhost", "port": 8080, "tls": false},
 "logging": {"level": "info", "handlers": ["console"]},
 "features": {"beta": false}}
""")
overrides = json.loads('{"server": {"port": 9000}, "logging": {"handlers": ["console", "file"]}, "name": "demo"}')
sorted(defaults), sorted(overrides)

# %% Deep merge
def merge(base, extra):
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out

config = merge(defaults, overrides)
config["server"]

# %% Pretty JSON
print(json.dumps(config, indent=2, sort_keys=True))

# %% Compact JSON
json.dumps(config["logging"], separators=(",", ":"))

# %% Flatten to dotted keys
def flatten(d, prefix=""):
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            yield from flatten(v, key + ".")
        else:
            yield key, v

for k, v in sorted(flatten(config)):
    print(f"{k} = {v!r}")

# %% Round trip
json.loads(json.dumps(config)) == config

# %% Bad JSON gives a clear error
json.loads('{"port": 80,}')
