# %pdb, %autocall, %autoawait, %colors, %magic, %quickref, %notebook,
# %pastebin (no network), %edit and %ed (a kernel's edit payload),
# %code_wrap, %sc.

# %% pdb toggles
%pdb

# %% pdb off
%pdb off

# %% pdb on
%pdb 1

# %% pdb bad argument
%pdb maybe

# %% pdb toggled off
%pdb

# %% an error with pdb off
def inverse(x):
    return 1 / x

inverse(0)

# %% autocall toggles
%autocall

# %% autocall a call
len "abc"

# %% autocall smart leaves a bare name
len

# %% autocall does not call an indexed callable
dict ["a"]

# %% autocall full
%autocall 2

# %% autocall full calls a bare name
dict

# %% autocall bad mode
%autocall 3

# %% autocall toggle remembers
%autocall
%autocall

# %% autocall off
%autocall 0

# %% autocall off leaves Python alone
len

# %% autoawait state
%autoawait

# %% autoawait off
%autoawait off
%autoawait

# %% await with autoawait off
import asyncio
await asyncio.sleep(0)

# %% autoawait on
%autoawait on

# %% await with autoawait on
await asyncio.sleep(0, result=3)

# %% autoawait an unknown runner
%autoawait no_such_runner

# %% colors without a theme
%colors

# %% colors nocolor
%colors nocolor

# %% autoreload's magics, which %magic lists once it is loaded
%load_ext autoreload

# %% magic
%%capture magic_text
%magic

# %% magic headings
import re

headings = re.compile(r"^%%?[\w!]+:$", re.M)
headings.findall(magic_text.stdout)

# %% magic ends with the summary of lsmagic
magics = %lsmagic
magic_text.stdout.endswith("\nSummary of magic functions (from %lsmagic):\n" + str(magics) + "\n")

# %% magic brief
%%capture magic_brief
%magic -brief

# %% magic brief headings
headings.findall(magic_brief.stdout) == headings.findall(magic_text.stdout), magic_brief.stdout.count("\n") < magic_text.stdout.count("\n")

# %% quickref
%%capture quickref_text
%quickref

# %% quickref magics
headings.findall(quickref_text.stdout) == headings.findall(magic_text.stdout), quickref_text.stdout.endswith(magic_brief.stdout.split("\n%alias:\n", 1)[1].split("\nSummary of magic functions", 1)[0])

# %% notebook without a file
%notebook

# %% notebook
%notebook history.ipynb

# %% notebook read back
import json

with open("history.ipynb") as f:
    nb = json.load(f)
nb["nbformat"], nb["nbformat_minor"], sorted(nb["metadata"]), nb["metadata"]["kernelspec"], len(nb["cells"])

# %% notebook cells
[(c["cell_type"], c["execution_count"], c["source"]) for c in nb["cells"][:3]], nb["cells"][-1]["source"]

# %% notebook outputs (tracebacks are each kernel's own; up to the %%capture cells, whose text IPython's history files under the next cell)
[[(o["output_type"], o.get("name"), "".join(o.get("text", [])), o.get("data"), o.get("execution_count"), o.get("ename"), o.get("evalue"))
  for o in c["outputs"]] for c in nb["cells"][:25]]

# %% notebook cell keys
sorted(nb["cells"][0]), sorted(nb["metadata"]["language_info"])

# %% pastebin bad expiry
%pastebin -e 0 1

# %% pastebin expiry not a number
%pastebin -e x 1

# %% pastebin nothing to paste
%pastebin no_such_thing

# %% pastebin without a network
%pastebin 1

# %% edit a new file
%edit new_script.py

# %% ed a file at a line
with open("helpers.py", "w") as f:
    f.write("x = 1\n\n\ndef helper():\n    return 2\n")
%ed -n 4 helpers.py

# %% edit a function
import helpers

%edit helpers.helper

# %% edit a macro
%macro twice 1
%edit twice

# %% code_wrap cell
%%code_wrap before_after
print('before')
__code__
print('after')
__ret__

# %% a wrapped cell
1 + 1

# %% a wrapped statement
y = 5

# %% code_wrap list
%code_wrap --list

# %% code_wrap list all
%code_wrap --list-all

# %% code_wrap remove
%code_wrap --remove before_after

# %% unwrapped again
2 + 2

# %% sc
%sc files=printf 'a\nb\n'
files

# %% sc list verbose
%sc -l -v lines=printf 'x\ny\n'

# %% sc list value
lines, lines.s

# %% sc without a name
%sc printf 'q\n'
