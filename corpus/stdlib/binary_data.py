# %% Integers in binary
n = 1234
bin(n), hex(n), oct(n), n.bit_length(), n.bit_count(), (-n).bit_length()

# %% int.to_bytes and from_bytes
b = n.to_bytes(4, "big")
b, int.from_bytes(b, "big"), int.from_bytes(b, "little"), (-2).to_bytes(2, "big", signed=True)

# %% struct packing of a record
import struct
rec = struct.pack("<HIf4s", 7, 123456, 1.5, b"ab")
rec, len(rec), struct.calcsize("<HIf4s")

# %% Unpack it again
struct.unpack("<HIf4s", rec)

# %% Bit flags
READ, WRITE, EXEC = 1, 2, 4
mode = READ | EXEC
[name for name, bit in (("r", READ), ("w", WRITE), ("x", EXEC)) if mode & bit], mode ^ WRITE, ~mode & 7

# %% Bytes and bytearray
ba = bytearray(b"hello")
ba[0] = ord("J")
ba.extend(b"!")
bytes(ba), ba.decode(), list(b"AZ"), b"\x00\xff".hex(" ")

# %% Encodings
s = "naïve – 東京"
s.encode("utf-8"), len(s), len(s.encode("utf-8")), s.encode("ascii", errors="replace")

# %% Decoding errors
b"\xff\xfe".decode("utf-8")

# %% Popcount table
[bin(i).count("1") for i in range(16)]

# %% Overflow of to_bytes
(300).to_bytes(1, "big")
