# The display cell magics, %%capture and %%writefile, as IPython answers them.

# %% html
%%html
<b>bold</b>

# %% HTML
%%HTML
<i>it</i>

# %% html isolated
%%html --isolated
<b>iso</b>

# %% html with an option it has not
%%html --wide
<b>x</b>

# %% SVG
%%SVG
<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>

# %% latex
%%latex
$x^2$

# %% markdown
%%markdown
# Title
*em*

# %% javascript
%%javascript
console.log(3)

# %% bang
%%!
echo one
echo two

# %% capture value
%%capture c2
print("x")
41 + 1

# %% capture value outputs
len(c2.outputs), c2.outputs[0].data, c2.stdout, str(c2)

# %% capture display
%%capture c3
from IPython.display import display, HTML
display(HTML("<p>h</p>"))

# %% its output
c3.outputs[0].data, c3.outputs[0].metadata

# %% shown again
c3.show()

# %% capture no-stdout
%%capture --no-stdout c4
print("shown")
import sys
print("kept", file=sys.stderr)

# %% c4
c4.stdout, c4.stderr

# %% capture no-stderr no-display
%%capture --no-stderr --no-display c5
import sys
print("e", file=sys.stderr)
display(HTML("<p>v</p>"))
print("o")

# %% c5
c5.stdout, c5.stderr, c5.outputs

# %% capture no var
%%capture
print("gone")

# %% capture exception
%%capture c6
print("before")
1/0

# %% c6
c6.stdout

# %% capture ending in a semicolon
%%capture c6
print("again");

# %% c6 removed
"c6" in dir()

# %% capture bad option
%%capture --nope
1

# %% writefile quoted
%%writefile "quoted name.txt"
q

# %% read it
open("quoted name.txt").read()

# %% writefile no name
%%writefile
x

# %% writefile long append
%%writefile --append twice2.txt
a

# %% writefile append again
%%writefile --append twice2.txt
b

# %% read twice2
open("twice2.txt").read()
