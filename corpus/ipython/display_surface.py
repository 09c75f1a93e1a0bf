# IPython's public module surface: its version, the display_* functions,
# more display objects, the shell's display formatter.

# %% the version
import IPython
IPython.__version__, IPython.version_info[:3]

# %% raw data by MIME type
from IPython.display import (display_html, display_markdown, display_latex, display_json,
                             display_javascript, display_pretty, display_svg)
display_html("<b>bold</b>", raw=True)
display_markdown("*emphasis*", raw=True)
display_latex(r"$\alpha$", raw=True)
display_json({"a": [1, 2]}, raw=True)
display_javascript("console.log(1)", raw=True)
display_pretty("just text", raw=True)

# %% one MIME type of an object
from IPython.display import display_png
class Swatch:
    def __init__(self, name):
        self.name = name
    def _repr_html_(self):
        return "<span>%s</span>" % self.name
    def _repr_markdown_(self):
        return "**%s**" % self.name
    def __repr__(self):
        return "Swatch(%r)" % self.name

display_html(Swatch("teal"))
display_markdown(Swatch("plum"), Swatch("rust"))
display_png(Swatch("none"))

# %% display_pretty of objects
display_pretty({"k": list(range(3))}, Swatch("sand"))

# %% math
from IPython.display import Math
Math(r"e^{i\pi} + 1 = 0")

# %% math in dollars
display(Math(r"$\sum_{k=1}^n k$"))

# %% a progress bar
from IPython.display import ProgressBar
bar = ProgressBar(4)
total = 0
for i in bar:
    total += i
total, repr(bar)

# %% its progress set by hand
bar.progress = 2
bar

# %% an image by URL is an <img> tag
from IPython.display import Image
Image(url="pictures/logo.png")

# %% with a size
Image(url="pictures/chart.gif", width=120, height=40)

# %% an image fetched from a URL fails without the server
try:
    Image("http://localhost:9/logo.png")
except Exception as e:
    print(type(e).__name__)

# %% the formatters
f = get_ipython().display_formatter
for mime, formatter in f.formatters.items():
    print(mime, type(formatter).__name__)

# %% a LaTeX formatter for a class
class Fraction:
    def __init__(self, n, d):
        self.n, self.d = n, d
    def __repr__(self):
        return "Fraction(%d, %d)" % (self.n, self.d)

latex_f = f.formatters["text/latex"]
latex_f.for_type(Fraction, lambda q: r"$\frac{%d}{%d}$" % (q.n, q.d))
Fraction(1, 3)

# %% displayed, and the formatter knows it
display(Fraction(2, 5))
Fraction in latex_f, latex_f.lookup(Fraction(1, 2))(Fraction(3, 4))

# %% a text printer
def fraction_text(q, p, cycle):
    p.text("%d/%d" % (q.n, q.d))

f.formatters["text/plain"].for_type(Fraction, fraction_text)
Fraction(5, 8)

# %% inside a list
[Fraction(1, 2), Fraction(1, 4)]

# %% by module and name
class Meters(float):
    pass

f.formatters["text/html"].for_type_by_name(__name__, "Meters", lambda m: "<i>%g m</i>" % m)
Meters(2.5)

# %% removed again
latex_f.pop(Fraction)
f.formatters["text/plain"].pop(Fraction)
Fraction(1, 3)

# %% a disabled formatter
f.formatters["text/html"].enabled = False
Swatch("grey")

# %% enabled again
f.formatters["text/html"].enabled = True
Swatch("gold")

# %% the formatter's bundle
data, meta = f.format(Swatch("red"))
sorted(data)
