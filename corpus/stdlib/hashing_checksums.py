# %% Digests of some bytes
import hashlib, base64, binascii, zlib
data = "The quick brown fox jumps over the lazy dog".encode()
hashlib.sha256(data).hexdigest()

# %% Several algorithms
{name: hashlib.new(name, data).hexdigest()[:16] for name in ("md5", "sha1", "sha256", "sha512", "blake2b")}

# %% Incremental hashing
h = hashlib.sha256()
for chunk in (data[:10], data[10:]):
    h.update(chunk)
h.hexdigest() == hashlib.sha256(data).hexdigest()

# %% Checksums
zlib.crc32(data), zlib.adler32(data), binascii.crc32(b"hello")

# %% Base64 and hex
enc = base64.b64encode(data)
enc[:20], base64.b64decode(enc) == data, base64.urlsafe_b64encode(b"\xfb\xff"), data[:4].hex(), bytes.fromhex("cafe")

# %% Compression
packed = zlib.compress(data * 20)
len(data * 20), len(packed), zlib.decompress(packed) == data * 20

# %% HMAC
import hmac
hmac.new(b"secret-key", data, hashlib.sha256).hexdigest()[:32]

# %% A dedup table by content hash
docs = ["alpha", "beta", "alpha", "gamma", "beta"]
seen = {}
for i, d in enumerate(docs):
    seen.setdefault(hashlib.md5(d.encode()).hexdigest()[:8], []).append(i)
sorted(seen.values())

# %% Bad base64
base64.b64decode("abc")
