# %% [markdown]
# # Word frequencies in a short text
# Tokenise a paragraph, count words, and look at the most common ones.

# %% The text
text = """It was the best of times, it was the worst of times, it was the age of
wisdom, it was the age of foolishness, it was the epoch of belief, it was the
epoch of incredulity, it was the season of Light, it was the season of Darkness."""
len(text)

# %% Tokenise
import re
words = re.findall(r"[a-z']+", text.lower())
print(len(words), "words")
words[:8]

# %% Count
from collections import Counter
counts = Counter(words)
counts.most_common(5)

# %% Words used once
once = sorted(w for w, n in counts.items() if n == 1)
print(", ".join(once))

# %% A frequency table
for word, n in counts.most_common(6):
    print(f"{word:<8} {n:>3} {'#' * n}")

# %% Stop words removed
stop = {"it", "was", "the", "of"}
content = Counter(w for w in words if w not in stop)
content.most_common(3)

# %% Average word length
avg = sum(map(len, words)) / len(words)
round(avg, 2)

# %% Longest words, ties broken alphabetically
sorted(set(words), key=lambda w: (-len(w), w))[:4]
