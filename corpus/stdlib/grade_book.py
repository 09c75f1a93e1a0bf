# %% Scores
import statistics as st
scores = {
    "ana": [88, 92, 79, 95],
    "ben": [72, 65, 80, 70],
    "chloé": [91, 94, 89, 99],
    "dev": [55, 78, 62, 70],
}
len(scores)

# %% Means and medians
for name, s in scores.items():
    print(f"{name:<6} mean={st.mean(s):6.2f} median={st.median(s):5.1f}")

# %% Class statistics
all_scores = [x for s in scores.values() for x in s]
round(st.mean(all_scores), 3), round(st.stdev(all_scores), 3), st.median(all_scores)

# %% Letter grades
def letter(avg):
    for cutoff, grade in ((90, "A"), (80, "B"), (70, "C"), (60, "D")):
        if avg >= cutoff:
            return grade
    return "F"

{name: letter(st.mean(s)) for name, s in scores.items()}

# %% Best improvement from first to last test
improvement = {name: s[-1] - s[0] for name, s in scores.items()}
max(improvement.items(), key=lambda kv: kv[1])

# %% Quantiles
st.quantiles(all_scores, n=4)

# %% Standard scores
mu, sigma = st.mean(all_scores), st.pstdev(all_scores)
[round((x - mu) / sigma, 2) for x in scores["dev"]]

# %% Mode of rounded scores
st.mode([round(x, -1) for x in all_scores])
