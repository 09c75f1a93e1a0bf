# %% [markdown]
# Differential cells: the json module.

# %% json-dumps-basic
import json
json.dumps({"a": 1, "b": [True, None, 2.5], "c": "x"})

# %% json-dumps-indent
import json
print(json.dumps({"a": 1, "b": [1, 2]}, indent=2))

# %% json-dumps-sort-keys
import json
json.dumps({"b": 1, "a": 2, "c": {"z": 1, "y": 2}}, sort_keys=True)

# %% json-dumps-separators
import json
json.dumps([1, {"a": 2}], separators=(",", ":"))

# %% json-dumps-ensure-ascii
import json
json.dumps("café ☕ 東京"), json.dumps("café ☕", ensure_ascii=False)

# %% json-dumps-floats
import json
json.dumps([0.1, 1e20, 1.0, -0.0, 3.14159265358979, 1e-7])

# %% json-dumps-special-floats
import json
json.dumps([float("inf"), float("nan")])

# %% json-dumps-special-floats-strict
import json
json.dumps(float("nan"), allow_nan=False)

# %% json-dumps-non-string-keys
import json
json.dumps({1: "a", 2.5: "b", True: "c", None: "d"})

# %% json-dumps-tuple-as-list
import json
json.dumps((1, (2, 3)))

# %% json-dumps-unserializable
import json
json.dumps({"s": {1, 2}})

# %% json-dumps-default
import json
from datetime import date
json.dumps({"d": date(2024, 1, 2)}, default=str)

# %% json-custom-encoder
import json
class Enc(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, complex):
            return [o.real, o.imag]
        return super().default(o)
json.dumps({"z": 1 + 2j}, cls=Enc)

# %% json-loads-basic
import json
json.loads('{"a": [1, 2.5, "x", true, false, null]}')

# %% json-loads-unicode-escapes
import json
json.loads('"caf\\u00e9 \\ud83d\\ude00"')

# %% json-loads-big-int
import json
json.loads("123456789012345678901234567890")

# %% json-loads-parse-float-decimal
import json
from decimal import Decimal
json.loads("[1.10, 2]", parse_float=Decimal)

# %% json-loads-object-hook
import json
json.loads('{"x": 1, "y": 2}', object_hook=lambda d: tuple(sorted(d.items())))

# %% json-loads-object-pairs-hook
import json
json.loads('{"a": 1, "a": 2}', object_pairs_hook=list)

# %% json-loads-duplicate-keys
import json
json.loads('{"a": 1, "a": 2}')

# %% json-loads-error-trailing-comma
import json
json.loads("[1, 2,]")

# %% json-loads-error-single-quotes
import json
json.loads("{'a': 1}")

# %% json-loads-error-extra-data
import json
json.loads('{"a": 1} {"b": 2}')

# %% json-decode-error-attributes
import json
try:
    json.loads('{"a": }')
except json.JSONDecodeError as e:
    r = (e.msg, e.lineno, e.colno, e.pos)
r

# %% json-loads-nan-infinity
import json
json.loads("[NaN, Infinity, -Infinity]")

# %% json-roundtrip-nested
import json
data = {"users": [{"id": 1, "tags": ["a"]}, {"id": 2, "tags": []}], "ok": True}
json.loads(json.dumps(data)) == data

# %% json-dumps-indent-string
import json
print(json.dumps({"a": [1]}, indent="\t"))

# %% json-dumps-empty-containers-indent
import json
print(json.dumps({"a": [], "b": {}}, indent=2))

# %% json-load-from-stringio
import json, io
json.load(io.StringIO('{"k": "v"}'))

# %% json-dump-to-stringio
import json, io
buf = io.StringIO()
json.dump([1, "two"], buf)
buf.getvalue()
