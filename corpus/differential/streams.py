# %% [markdown]
# Bytes and strings a terminal (and Jupyter) shows: a character split across
# writes, invalid bytes, surrogates.

# %% split character
import sys
sys.stdout.buffer.write(b"\xe2\x82")
sys.stdout.buffer.write(b"\xac\n");

# %% invalid bytes
sys.stdout.buffer.write(b"a\xed\xa0\x80b\xffc\n");

# %% lone surrogate
print("\ud800 lone")

# %% surrogate pair
print("\ud83d\ude00 pair")
