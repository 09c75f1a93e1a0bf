# %% [markdown]
# Binary files: a fixed-layout record file and a compressed blob.

# %% Read the header
import struct
with open("records.bin", "rb") as f:
    magic = f.read(4)
    version, count = struct.unpack("<HH", f.read(4))
magic, version, count

# %% Read the records
with open("records.bin", "rb") as f:
    f.seek(8)
    recs = [struct.unpack("<If", f.read(8)) for _ in range(count)]
recs

# %% File size matches the layout
import os
os.path.getsize("records.bin") == 8 + 8 * count

# %% A checksum of the file
import hashlib
from pathlib import Path
hashlib.sha256(Path("records.bin").read_bytes()).hexdigest()[:16]

# %% Decompress the blob
import zlib
text = zlib.decompress(Path("blob.gz.bin").read_bytes()).decode()
len(text), text[:12]

# %% Append a record and re-read the count
with open("records.bin", "r+b") as f:
    f.seek(0, 2)
    f.write(struct.pack("<If", 4, 0.125))
    f.seek(6)
    f.write(struct.pack("<H", count + 1))
with open("records.bin", "rb") as f:
    data = f.read()
struct.unpack_from("<H", data, 6)[0], struct.unpack_from("<If", data, len(data) - 8)

# %% Memory-mapped read
import mmap
with open("records.bin", "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
    first = mm[:4]
first

# %% Truncated file raises struct.error
Path("short.bin").write_bytes(b"RECS\x01")
with open("short.bin", "rb") as f:
    f.read(4)
    struct.unpack("<HH", f.read(4))
