# %% Reading an INI configuration
import configparser
text = """
[DEFAULT]
timeout = 30
retries = 3

[database]
host = db.internal
port = 5432
user = app
debug = yes

[cache]
host = cache.internal
port = 6379
timeout = 5
"""
cfg = configparser.ConfigParser()
cfg.read_string(text)
cfg.sections()

# %% Typed getters and defaults
db = cfg["database"]
db.get("host"), db.getint("port"), db.getboolean("debug"), db.getint("timeout"), cfg["cache"].getint("timeout")

# %% All options of a section (including DEFAULT)
dict(cfg["cache"])

# %% Fallbacks
cfg.get("database", "password", fallback="<unset>"), cfg.getint("cache", "retries")

# %% Interpolation
cfg2 = configparser.ConfigParser()
cfg2.read_string("[paths]\nroot = /srv/app\nlogs = %(root)s/logs\ndata = %(root)s/data\n")
cfg2["paths"]["logs"], cfg2.get("paths", "data", raw=True)

# %% Write it back out
import io
cfg["cache"]["port"] = "6380"
buf = io.StringIO()
cfg.write(buf)
print(buf.getvalue().strip())

# %% Missing section
cfg["web"]

# %% Bad boolean
cfg.read_string("[flags]\nenabled = maybe\n")
cfg.getboolean("flags", "enabled")
