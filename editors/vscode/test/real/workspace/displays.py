# %% an HTML table
from IPython.display import HTML
HTML("<table><tr><th>city</th><th>people</th></tr><tr><td>Oslo</td><td>709000</td></tr><tr><td>Bergen</td><td>291000</td></tr></table>")

# %% a plot
import matplotlib.pyplot as plt
plt.plot([1, 3, 2])
plt.title("three points")
plt.show()
