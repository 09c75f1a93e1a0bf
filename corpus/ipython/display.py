# display() and IPython's display objects.

# %% plain values
display(1, "two", [3])

# %% markdown
from IPython.display import display, Markdown, HTML, JSON, Latex, Pretty
display(Markdown("**bold**"))

# %% html as the value
HTML("<b>x</b>")

# %% json
display(JSON({"a": 1}))

# %% an object with _repr_html_
class Table:
    def _repr_html_(self):
        return "<table><tr><td>1</td></tr></table>"

    def __repr__(self):
        return "Table()"

Table()

# %% displayed
display(Table())

# %% _repr_mimebundle_
class Both:
    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": "both", "text/markdown": "*both*"}

display(Both())

# %% update a display
h = display(Markdown("v1"), display_id=True)
h.update(Markdown("v2"))

# %% clear_output
from IPython.display import clear_output
display("before")
clear_output()
display("after")

# %% latex
Latex(r"$x^2$")

# %% pretty
display(Pretty("pretty text"))

# %% prints around a display
print("a")
display("b")
print("c")
