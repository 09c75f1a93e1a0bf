# Media and link display objects, objects that display themselves, and
# figures printed to image data for a formatter.

# %% a working folder of its own
import os, tempfile
home = os.getcwd()
os.chdir(tempfile.mkdtemp())
os.makedirs("clips/raw")
for name in ("clips/intro.txt", "clips/raw/take1.txt"):
    with open(name, "w") as f:
        f.write("x")

# %% a link to a file
from IPython.display import FileLink, FileLinks
display_html = __import__("IPython.display", fromlist=["display_html"]).display_html
display_html(FileLink("clips/intro.txt"))

# %% a link to a file not there yet
display_html(FileLink("clips/later.txt"))

# %% links to a folder's files
links = FileLinks("clips")
display_html(links)
print(repr(links))

# %% only some suffixes, not below
display_html(FileLinks("clips", included_suffixes=[".txt"], recursive=False))

# %% an audio link
from IPython.display import Audio
Audio(url="sounds/beep.wav")

# %% audio from samples, embedded
import math
tone = Audio([math.sin(i / 3) for i in range(40)], rate=8000)
html = tone._repr_html_() if hasattr(tone, "_repr_html_") else None
bundle = get_ipython().display_formatter.format(tone)[0]
print(sorted(bundle), bundle["text/html"].count("data:audio/wav;base64,"))

# %% a video file that is not there
from IPython.display import Video
Video("clips/intro.mp4", width=320)

# %% a video link
Video(url="clips/intro.mp4", width=320, height=180)

# %% embedded from a file
with open("clips/tiny.mp4", "wb") as f:
    f.write(b"not really a video")
display_html(Video("clips/tiny.mp4", embed=True))

# %% an iframe
from IPython.display import IFrame
display_html(IFrame("pages/report.html", width=400, height=250))

# %% with parameters
display_html(IFrame("pages/report.html", 300, 200, ["sandbox"], page=2, theme="dark"))

# %% GeoJSON
from IPython.display import GeoJSON
GeoJSON({"type": "Point", "coordinates": [4.9, 52.4]})

# %% an object that displays itself
class Banner:
    def _ipython_display_(self):
        print("shown by itself")
        display({"text/markdown": "# Banner"}, raw=True)
    def __repr__(self):
        return "Banner()"

Banner()

# %% displayed
display(Banner(), "after")

# %% a figure as PNG and SVG data
import matplotlib.pyplot as plt
from IPython.core.pylabtools import print_figure
fig, ax = plt.subplots()
ax.plot([1, 3, 2])
png = print_figure(fig)
svg = print_figure(fig, "svg")
plt.close(fig)
png[:8], svg.lstrip().startswith("<?xml"), type(print_figure(fig, base64=True)).__name__

# %% an empty figure prints nothing
empty = plt.figure()
plt.close(empty)
print_figure(empty) is None

# %% a PNG formatter made with print_figure
plt.close("all")
class Curve:
    def __init__(self, ys):
        self.ys = ys
    def __repr__(self):
        return "Curve(%d points)" % len(self.ys)

def curve_png(c):
    fig, ax = plt.subplots()
    ax.plot(c.ys)
    data = print_figure(fig)
    plt.close(fig)
    return data

get_ipython().display_formatter.formatters["image/png"].for_type(Curve, curve_png)
Curve([3, 1, 2])

# %% shown as PNG only
from IPython.display import display_png
display_png(Curve([1, 2]))

# %% back home
os.chdir(home)
