# %%
import re
import json
text = """The quick brown fox jumps over the lazy dog.
The dog barks; the fox runs away, quick as ever!"""
words = re.findall(r"[a-z]+", text.lower())
len(words)

# %% Word counts
from collections import Counter
counts = Counter(words)
counts.most_common(3)

# %% Unique words, sorted
uniq = set(words)
sorted(uniq)[:5], len(uniq)

# %% As JSON
print(json.dumps({"top": counts.most_common(2), "n": len(words)}))

# %% Title case, no division error
def ratio(a, b):
    return a / b
ratio(len(uniq), len(words)) > 0.5
