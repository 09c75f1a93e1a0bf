# %% Caesar and Vigenère ciphers
import string

def caesar(text, shift):
    lower, upper = string.ascii_lowercase, string.ascii_uppercase
    k = shift % 26
    table = str.maketrans(lower + upper, lower[k:] + lower[:k] + upper[k:] + upper[:k])
    return text.translate(table)

secret = caesar("Attack at Dawn!", 3)
secret, caesar(secret, -3)

# %% Break it by letter frequency
from collections import Counter
def crack(cipher):
    letters = [c for c in cipher.lower() if c.isalpha()]
    common = Counter(letters).most_common(1)[0][0]
    return (ord(common) - ord("e")) % 26

msg = caesar("meet me near the eastern tree line here", 11)
shift = crack(msg)
shift, caesar(msg, -shift)

# %% Vigenère
def vigenere(text, key, decrypt=False):
    out, i = [], 0
    for ch in text:
        if ch.isalpha():
            base = ord("A") if ch.isupper() else ord("a")
            k = ord(key[i % len(key)].lower()) - ord("a")
            out.append(chr((ord(ch) - base + (-k if decrypt else k)) % 26 + base))
            i += 1
        else:
            out.append(ch)
    return "".join(out)

v = vigenere("Hello, World", "lemon")
v, vigenere(v, "lemon", decrypt=True)

# %% The string module's constants
string.digits, string.punctuation[:10], len(string.printable)

# %% ROT13 through codecs
import codecs
codecs.encode("Hello", "rot13")

# %% Remove punctuation
"Hi! Are you -- really -- sure?".translate(str.maketrans("", "", string.punctuation)).split()

# %% Template strings
t = string.Template("$who likes $what")
t.substitute(who="tim", what="kung pao"), t.safe_substitute(who="tim")

# %% Missing placeholder
t.substitute(who="tim")
