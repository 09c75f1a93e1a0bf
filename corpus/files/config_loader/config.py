# %% [markdown]
# Configuration from INI, TOML, JSON and key=value files beside the notebook.

# %% INI with configparser.read
import configparser
cfg = configparser.ConfigParser()
read = cfg.read("settings.ini")
read, cfg.sections()

# %% Typed values
cfg.getint("server", "port"), cfg.getboolean("database", "echo"), cfg["database"]["log_level"]

# %% A missing INI file is silently skipped
cfg.read(["settings.ini", "local.ini"])

# %% TOML with tomllib (binary mode)
import tomllib
with open("pyproject.toml", "rb") as f:
    pyproject = tomllib.load(f)
pyproject["project"]["version"], pyproject["tool"]["demo"]

# %% tomllib wants a binary file
with open("pyproject.toml") as f:
    tomllib.load(f)

# %% JSON overrides merged in
import json
overrides = json.load(open("overrides.json"))
merged = {s: dict(cfg[s]) for s in cfg.sections()}
for section, values in overrides.items():
    merged[section].update({k: str(v).lower() for k, v in values.items()})
merged["server"]["port"], merged["database"]["echo"]

# %% key=value parsing by hand
conf = {}
with open("app.conf") as f:
    for line in f:
        line = line.strip()
        if line and not line.startswith("#"):
            k, _, v = line.partition("=")
            conf[k.strip()] = v.strip().strip('"')
conf

# %% Write an INI back and reread it
cfg["server"]["port"] = str(merged["server"]["port"])
with open("settings.local.ini", "w") as f:
    cfg.write(f)
again = configparser.ConfigParser()
again.read("settings.local.ini")
again.getint("server", "port"), sorted(p for p in __import__("os").listdir(".") if p.endswith(".ini"))
