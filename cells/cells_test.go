package cells

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// parseCases pin down Parse's full output; FuzzParse also seeds from them.
var parseCases = []struct {
	name string
	text string
	want []Cell
}{
	{"empty", "", nil},
	{
		"no markers", "x = 1\ny = 2\n",
		[]Cell{{Index: 0, Kind: Code, HeaderLine: -1, StartLine: 0, EndLine: 3, LastLine: 1, End: Position{1, 5}, Code: "x = 1\ny = 2"}},
	},
	{
		"no markers without final newline", "print(1)",
		[]Cell{{Index: 0, Kind: Code, HeaderLine: -1, StartLine: 0, EndLine: 1, LastLine: 0, End: Position{0, 8}, Code: "print(1)"}},
	},
	{
		"no markers blank file", "\n  \n",
		[]Cell{{Index: 0, Kind: Code, HeaderLine: -1, StartLine: 0, EndLine: 3, LastLine: -1, End: Position{0, 0}, Code: ""}},
	},
	{
		"no markers whitespace only line", "\t ",
		[]Cell{{Index: 0, Kind: Code, HeaderLine: -1, StartLine: 0, EndLine: 1, LastLine: -1, End: Position{0, 2}, Code: ""}},
	},
	{
		"raw cells, by tag or inactive in notebooks", "# %% [raw]\n\"\"\"\nraw text\n\"\"\"\n# %% Notes [raw]\nx\n# %% active=\"py\"\nprint(1)\n# %%\ny = 2\n",
		[]Cell{
			{Index: 0, Kind: Raw, HeaderLine: 0, StartLine: 1, EndLine: 4, LastLine: 3, End: Position{3, 3}, Code: "\"\"\"\nraw text\n\"\"\""},
			{Index: 1, Kind: Raw, Title: "Notes", HeaderLine: 4, StartLine: 5, EndLine: 6, LastLine: 5, End: Position{5, 1}, Code: "x"},
			{Index: 2, Kind: Raw, Title: `active="py"`, HeaderLine: 6, StartLine: 7, EndLine: 8, LastLine: 7, End: Position{7, 8}, Code: "print(1)"},
			{Index: 3, Kind: Code, HeaderLine: 8, StartLine: 9, EndLine: 11, LastLine: 9, End: Position{9, 5}, Code: "y = 2"},
		},
	},
	{
		"two cells with title", "# %%\na = 1\n# %% Load data\nb = 2\n",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 2, LastLine: 1, End: Position{1, 5}, Code: "a = 1"},
			{Index: 1, Kind: Code, Title: "Load data", HeaderLine: 2, StartLine: 3, EndLine: 5, LastLine: 3, End: Position{3, 5}, Code: "b = 2"},
		},
	},
	{
		"no-space markers and trailing whitespace", "#%%\na\n#%% t\nb\n# %%  \t\nc\n# %%\tT  x \t\nd",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 2, LastLine: 1, End: Position{1, 1}, Code: "a"},
			{Index: 1, Kind: Code, Title: "t", HeaderLine: 2, StartLine: 3, EndLine: 4, LastLine: 3, End: Position{3, 1}, Code: "b"},
			{Index: 2, Kind: Code, HeaderLine: 4, StartLine: 5, EndLine: 6, LastLine: 5, End: Position{5, 1}, Code: "c"},
			{Index: 3, Kind: Code, Title: "T  x", HeaderLine: 6, StartLine: 7, EndLine: 8, LastLine: 7, End: Position{7, 1}, Code: "d"},
		},
	},
	{
		"markdown both tag orders", "# %% [markdown]\n# # Intro\n# %% [markdown] Notes\n# text\n# %% Plan [markdown]\n# - a\n#%% [md]\n# m\n# %% x [md]\n# y\n# %% code\nz\n",
		[]Cell{
			{Index: 0, Kind: Markdown, HeaderLine: 0, StartLine: 1, EndLine: 2, LastLine: 1, End: Position{1, 9}, Code: "# # Intro"},
			{Index: 1, Kind: Markdown, Title: "Notes", HeaderLine: 2, StartLine: 3, EndLine: 4, LastLine: 3, End: Position{3, 6}, Code: "# text"},
			{Index: 2, Kind: Markdown, Title: "Plan", HeaderLine: 4, StartLine: 5, EndLine: 6, LastLine: 5, End: Position{5, 5}, Code: "# - a"},
			{Index: 3, Kind: Markdown, HeaderLine: 6, StartLine: 7, EndLine: 8, LastLine: 7, End: Position{7, 3}, Code: "# m"},
			{Index: 4, Kind: Markdown, Title: "x", HeaderLine: 8, StartLine: 9, EndLine: 10, LastLine: 9, End: Position{9, 3}, Code: "# y"},
			{Index: 5, Kind: Code, Title: "code", HeaderLine: 10, StartLine: 11, EndLine: 13, LastLine: 11, End: Position{11, 1}, Code: "z"},
		},
	},
	{
		"In prompts", "# In[ ]:\na\n# In[12]:\nb\n# In[]:\nc\n#In[ ]\nd\n# In[3]\ne",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 2, LastLine: 1, End: Position{1, 1}, Code: "a"},
			{Index: 1, Kind: Code, HeaderLine: 2, StartLine: 3, EndLine: 4, LastLine: 3, End: Position{3, 1}, Code: "b"},
			{Index: 2, Kind: Code, HeaderLine: 4, StartLine: 5, EndLine: 6, LastLine: 5, End: Position{5, 1}, Code: "c"},
			{Index: 3, Kind: Code, HeaderLine: 6, StartLine: 7, EndLine: 8, LastLine: 7, End: Position{7, 1}, Code: "d"},
			{Index: 4, Kind: Code, HeaderLine: 8, StartLine: 9, EndLine: 10, LastLine: 9, End: Position{9, 1}, Code: "e"},
		},
	},
	{
		"codecell and markdowncell", "# <codecell>\nx = 1\n# <markdowncell>\n# hello\n#<codecell>\ny\n",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 2, LastLine: 1, End: Position{1, 5}, Code: "x = 1"},
			{Index: 1, Kind: Markdown, HeaderLine: 2, StartLine: 3, EndLine: 4, LastLine: 3, End: Position{3, 7}, Code: "# hello"},
			{Index: 2, Kind: Code, HeaderLine: 4, StartLine: 5, EndLine: 7, LastLine: 5, End: Position{5, 1}, Code: "y"},
		},
	},
	{
		"lines that are not markers stay in the body",
		"# %%\n# %%x\n# %%%\n # %%\n\t# %%\n## %%\n# In[x]:\n# In[1]: y\nx = 1  # %%\n# <codecell> z\n# [markdown]",
		[]Cell{{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 11, LastLine: 10, End: Position{10, 12},
			Code: "# %%x\n# %%%\n # %%\n\t# %%\n## %%\n# In[x]:\n# In[1]: y\nx = 1  # %%\n# <codecell> z\n# [markdown]"}},
	},
	{
		"implicit first cell", "import os\n\n# %%\nx\n",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: -1, StartLine: 0, EndLine: 2, LastLine: 0, End: Position{0, 9}, Code: "import os"},
			{Index: 1, Kind: Code, HeaderLine: 2, StartLine: 3, EndLine: 5, LastLine: 3, End: Position{3, 1}, Code: "x"},
		},
	},
	{
		// nbconvert's header: no extra In [1], so execution counts match Jupyter's.
		"nbconvert header is no cell", "#!/usr/bin/env python\n# coding: utf-8\n\n# In[1]:\n\n\nx = 1\n\n\n# In[2]:\n\n\ny\n",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: 3, StartLine: 4, EndLine: 9, LastLine: 6, End: Position{6, 5}, Code: "\n\nx = 1"},
			{Index: 1, Kind: Code, HeaderLine: 9, StartLine: 10, EndLine: 14, LastLine: 12, End: Position{12, 1}, Code: "\n\ny"},
		},
	},
	{
		"comment-only prefix is no cell", "#!/usr/bin/env python\n# %%\nx",
		[]Cell{{Index: 0, Kind: Code, HeaderLine: 1, StartLine: 2, EndLine: 3, LastLine: 2, End: Position{2, 1}, Code: "x"}},
	},
	{
		"byte order mark and comment prefix is no cell", "\ufeff# coding: utf-8\n# %%\nx",
		[]Cell{{Index: 0, Kind: Code, HeaderLine: 1, StartLine: 2, EndLine: 3, LastLine: 2, End: Position{2, 1}, Code: "x"}},
	},
	{
		"docstring prefix is a cell", "\"\"\"Doc.\"\"\"\n# %%\nx",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: -1, StartLine: 0, EndLine: 1, LastLine: 0, End: Position{0, 10}, Code: "\"\"\"Doc.\"\"\""},
			{Index: 1, Kind: Code, HeaderLine: 1, StartLine: 2, EndLine: 3, LastLine: 2, End: Position{2, 1}, Code: "x"},
		},
	},
	{
		"comment and code prefix is a cell", "# setup\nimport os\n# %%\nx",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: -1, StartLine: 0, EndLine: 2, LastLine: 1, End: Position{1, 9}, Code: "# setup\nimport os"},
			{Index: 1, Kind: Code, HeaderLine: 2, StartLine: 3, EndLine: 4, LastLine: 3, End: Position{3, 1}, Code: "x"},
		},
	},
	{
		"markers inside triple-quoted strings do not split", "# %%\ns = \"\"\"\n# %%\n\"\"\"\nt = r'''\n# %% [markdown]\n'''\n# %%\ny",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 7, LastLine: 6, End: Position{6, 3}, Code: "s = \"\"\"\n# %%\n\"\"\"\nt = r'''\n# %% [markdown]\n'''"},
			{Index: 1, Kind: Code, HeaderLine: 7, StartLine: 8, EndLine: 9, LastLine: 8, End: Position{8, 1}, Code: "y"},
		},
	},
	{
		"every string prefix", "# %%\na = b\"\"\"\n# %%\n\"\"\" + rb'''\n# %%\n''' + Rb\"\"\"\n# In[1]:\n\"\"\"\nc = f\"\"\"{a}\n# %%\n{b!r}\"\"\" + u'''\n# <codecell>\n''' + t\"\"\"\n# %%\n\"\"\" + Fr'''\n#%%\n'''\n# %%\nz",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 17, LastLine: 16, End: Position{16, 3},
				Code: "a = b\"\"\"\n# %%\n\"\"\" + rb'''\n# %%\n''' + Rb\"\"\"\n# In[1]:\n\"\"\"\nc = f\"\"\"{a}\n# %%\n{b!r}\"\"\" + u'''\n# <codecell>\n''' + t\"\"\"\n# %%\n\"\"\" + Fr'''\n#%%\n'''"},
			{Index: 1, Kind: Code, HeaderLine: 17, StartLine: 18, EndLine: 19, LastLine: 18, End: Position{18, 1}, Code: "z"},
		},
	},
	{
		// Python 3.12: a replacement field may hold the f-string's own quotes.
		"triple quotes inside an f-string field", "# %%\nx = f\"\"\"{\"\"\"\n# %%\n\"\"\"}\"\"\"\n# %%\ny",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 4, LastLine: 3, End: Position{3, 7}, Code: "x = f\"\"\"{\"\"\"\n# %%\n\"\"\"}\"\"\""},
			{Index: 1, Kind: Code, HeaderLine: 4, StartLine: 5, EndLine: 6, LastLine: 5, End: Position{5, 1}, Code: "y"},
		},
	},
	{
		"single-quoted string continued by a backslash", "# %%\ns = 'a\\\n# %% b'\n# %%\nx",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 3, LastLine: 2, End: Position{2, 7}, Code: "s = 'a\\\n# %% b'"},
			{Index: 1, Kind: Code, HeaderLine: 3, StartLine: 4, EndLine: 5, LastLine: 4, End: Position{4, 1}, Code: "x"},
		},
	},
	{
		"string ending on a marker-like line", "# %%\ns = \"\"\"\n# %% \"\"\"\n# %%\ny",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 3, LastLine: 2, End: Position{2, 8}, Code: "s = \"\"\"\n# %% \"\"\""},
			{Index: 1, Kind: Code, HeaderLine: 3, StartLine: 4, EndLine: 5, LastLine: 4, End: Position{4, 1}, Code: "y"},
		},
	},
	{
		"string in the prefix", "x = '''\n# %%\n'''\n# %%\ny",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: -1, StartLine: 0, EndLine: 3, LastLine: 2, End: Position{2, 3}, Code: "x = '''\n# %%\n'''"},
			{Index: 1, Kind: Code, HeaderLine: 3, StartLine: 4, EndLine: 5, LastLine: 4, End: Position{4, 1}, Code: "y"},
		},
	},
	{
		// Half-typed: the unclosed quote hides nothing below it.
		"unterminated triple-quoted string", "# %%\ns = \"\"\"\n# %%\nx = 1",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 2, LastLine: 1, End: Position{1, 7}, Code: "s = \"\"\""},
			{Index: 1, Kind: Code, HeaderLine: 2, StartLine: 3, EndLine: 4, LastLine: 3, End: Position{3, 5}, Code: "x = 1"},
		},
	},
	{
		"quotes in comments open no string", "# it's\n# %%\nx = 1  # don't\n# %%\ny",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: 1, StartLine: 2, EndLine: 3, LastLine: 2, End: Position{2, 14}, Code: "x = 1  # don't"},
			{Index: 1, Kind: Code, HeaderLine: 3, StartLine: 4, EndLine: 5, LastLine: 4, End: Position{4, 1}, Code: "y"},
		},
	},
	{
		"blank prefix is no cell", "\n \t\n# %%\nx",
		[]Cell{{Index: 0, Kind: Code, HeaderLine: 2, StartLine: 3, EndLine: 4, LastLine: 3, End: Position{3, 1}, Code: "x"}},
	},
	{
		"implicit cell before markdown", "a\n# %% [markdown]\n# b",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: -1, StartLine: 0, EndLine: 1, LastLine: 0, End: Position{0, 1}, Code: "a"},
			{Index: 1, Kind: Markdown, HeaderLine: 1, StartLine: 2, EndLine: 3, LastLine: 2, End: Position{2, 3}, Code: "# b"},
		},
	},
	{
		"CRLF", "# %% a\r\nx = 1\r\n\r\n# %% [markdown]\r\n# hi\r\n",
		[]Cell{
			{Index: 0, Kind: Code, Title: "a", HeaderLine: 0, StartLine: 1, EndLine: 3, LastLine: 1, End: Position{1, 5}, Code: "x = 1"},
			{Index: 1, Kind: Markdown, HeaderLine: 3, StartLine: 4, EndLine: 6, LastLine: 4, End: Position{4, 4}, Code: "# hi"},
		},
	},
	{
		"CRLF multi-line body", "x\r\n# %%\r\na\r\n\r\nb\r\n",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: -1, StartLine: 0, EndLine: 1, LastLine: 0, End: Position{0, 1}, Code: "x"},
			{Index: 1, Kind: Code, HeaderLine: 1, StartLine: 2, EndLine: 6, LastLine: 4, End: Position{4, 1}, Code: "a\n\nb"},
		},
	},
	{
		"CRLF empty body at end", "# %% t \r\n",
		[]Cell{{Index: 0, Kind: Code, Title: "t", HeaderLine: 0, StartLine: 1, EndLine: 2, LastLine: 0, End: Position{0, 7}, Code: ""}},
	},
	{
		// A lone CR is content; a run of CRs before LF is a line ending.
		"lone and repeated CR", "# %%\r\na\rb\r\r\nc\r",
		[]Cell{{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 3, LastLine: 2, End: Position{2, 2}, Code: "a\rb\nc\r"}},
	},
	{
		"form feed and vertical tab are blank", "# %%\nx\n\f\v \n",
		[]Cell{{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 4, LastLine: 1, End: Position{1, 1}, Code: "x"}},
	},
	{
		"tabs", "# %%\n\tx = 1\t\n\t\t\n",
		[]Cell{{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 4, LastLine: 1, End: Position{1, 7}, Code: "\tx = 1\t"}},
	},
	{
		"non-ASCII and emoji", "# %% 📊 données\nprint('héllo')\ns = '😀'\n# %%\n名前 = 1\n# %%\nx = '👩‍💻' # é",
		[]Cell{
			// "s = '😀'": 7 code points, 8 UTF-16 units, 10 bytes.
			{Index: 0, Kind: Code, Title: "📊 données", HeaderLine: 0, StartLine: 1, EndLine: 3, LastLine: 2, End: Position{2, 8}, Code: "print('héllo')\ns = '😀'"},
			// "名前 = 1": 6 units, 10 bytes.
			{Index: 1, Kind: Code, HeaderLine: 3, StartLine: 4, EndLine: 5, LastLine: 4, End: Position{4, 6}, Code: "名前 = 1"},
			// ZWJ sequence: two astral emoji (2+2) plus U+200D (1); 15 units in all.
			{Index: 2, Kind: Code, HeaderLine: 5, StartLine: 6, EndLine: 7, LastLine: 6, End: Position{6, 15}, Code: "x = '👩‍💻' # é"},
		},
	},
	{
		"blank body end is end of non-ASCII header", "# %% ü 😀\n\n",
		[]Cell{{Index: 0, Kind: Code, Title: "ü 😀", HeaderLine: 0, StartLine: 1, EndLine: 3, LastLine: 0, End: Position{0, 9}, Code: ""}},
	},
	{
		"trailing blank lines dropped, leading kept", "# %%\n\n  \nx\n\n  \n\t\n",
		[]Cell{{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 8, LastLine: 3, End: Position{3, 1}, Code: "\n  \nx"}},
	},
	{
		"marker on last line", "x = 1\n# %% end  ",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: -1, StartLine: 0, EndLine: 1, LastLine: 0, End: Position{0, 5}, Code: "x = 1"},
			{Index: 1, Kind: Code, Title: "end", HeaderLine: 1, StartLine: 2, EndLine: 2, LastLine: 1, End: Position{1, 10}, Code: ""},
		},
	},
	{
		"only a marker", "# %%",
		[]Cell{{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 1, LastLine: 0, End: Position{0, 4}, Code: ""}},
	},
	{
		"consecutive markers", "# %%\n# %% b\n# %% [markdown]\n# In[ ]:\n",
		[]Cell{
			{Index: 0, Kind: Code, HeaderLine: 0, StartLine: 1, EndLine: 1, LastLine: 0, End: Position{0, 4}},
			{Index: 1, Kind: Code, Title: "b", HeaderLine: 1, StartLine: 2, EndLine: 2, LastLine: 1, End: Position{1, 6}},
			{Index: 2, Kind: Markdown, HeaderLine: 2, StartLine: 3, EndLine: 3, LastLine: 2, End: Position{2, 15}},
			{Index: 3, Kind: Code, HeaderLine: 3, StartLine: 4, EndLine: 5, LastLine: 3, End: Position{3, 8}},
		},
	},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse(tc.text)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse(%q):\n got %s\nwant %s", tc.text, fmtCells(got), fmtCells(tc.want))
			}
			checkInvariants(t, tc.text, got)
		})
	}
}

func TestParseMarker(t *testing.T) {
	type res struct {
		kind  Kind
		title string
		ok    bool
	}
	code := func(title string) res { return res{Code, title, true} }
	md := func(title string) res { return res{Markdown, title, true} }
	raw := func(title string) res { return res{Raw, title, true} }
	none := res{}
	for line, want := range map[string]res{
		"# %%":                      code(""),
		"#%%":                       code(""),
		"#   %%":                    code(""),
		"#\t%%":                     code(""),
		"# %% \t \r":                code(""),
		"# %% Load data":            code("Load data"),
		"#\f%%\v\fform feed\f":      code("form feed"),
		"#%% Load data  ":           code("Load data"),
		"# %%\tTabbed":              code("Tabbed"),
		"# %% a [markdown] b":       md("a  b"), // Jupytext: the tag anywhere in the title
		"# %% [markdown]x":          md("x"),
		"# %% x[markdown]":          md("x"),
		"# %% [Markdown]":           code("[Markdown]"),
		"# %% [RAW]":                code("[RAW]"),
		"# %% [raw]":                raw(""),
		"# %% [raw] Notes":          raw("Notes"),
		"# %% Notes [raw] k=\"v\"":  raw("Notes"),
		"# %% [markdown] [raw]":     md("[raw]"),
		"# %% t active=\"py\"":      raw("# %% t active=\"py\""[5:]),
		"# %% active=\"py,R\"":      raw(`active="py,R"`),
		"# %% {\"active\": \"py\"}": raw(`{"active": "py"}`),
		"# %% active=\"ipynb,py\"":  code(`active="ipynb,py"`),
		"# %% t x=\"[raw]\"":        code(`t x="[raw]"`),
		"# %% t {\"a\": \"[md]\"}":  code(`t {"a": "[md]"}`),
		"# %% [markdown]":           md(""),
		"#%% [markdown]":            md(""),
		"# %%\t[markdown]\t":        md(""),
		"# %% [markdown] Title":     md("Title"),
		"# %% Title [markdown]":     md("Title"),
		"# %% [md]":                 md(""),
		"# %% [md] Notes here":      md("Notes here"),
		"# %% Notes here [md]":      md("Notes here"),
		"# %% [markdown] x [md]":    md("x [md]"),
		"# In[ ]:":                  code(""),
		"# In[]:":                   code(""),
		"# In[12]:":                 code(""),
		"# In[ 7 ]:":                code(""),
		"# In[ ]":                   code(""),
		"#In[ ]:":                   code(""),
		"#In[3]  ":                  code(""),
		"# <codecell>":              code(""),
		"#<codecell> ":              code(""),
		"# <markdowncell>":          md(""),
		"# %%x":                     none,
		"# %%%":                     none,
		"#%%%% x":                   none,
		" # %%":                     none,
		"\t# %%":                    none,
		"## %%":                     none,
		"# %":                       none,
		"%%":                        none,
		"":                          none,
		"#":                         none,
		"x = 1  # %%":               none,
		"# In[x]:":                  none,
		"# In[1 2]:":                none,
		"# In[\t]:":                 none,
		"# In[1]: x":                none,
		"# In[1]::":                 none,
		"# In[1":                    none,
		"# in[1]:":                  none,
		"# Out[1]:":                 none,
		"# <codecell> x":            none,
		"# <CodeCell>":              none,
		"# <rawcell>":               none,
		"# [markdown]":              none,
		"# %%\u00a0title":           none, // NBSP is not Python whitespace
		"\ufeff# %%":                none,
		"# %%" + "\u3000":           none,
		"# comment mentioning %% ":  none,
	} {
		kind, title, ok := parseMarker(line)
		if got := (res{kind, title, ok}); got != want {
			t.Errorf("parseMarker(%q) = %+v, want %+v", line, got, want)
		}
	}
}

func TestAt(t *testing.T) {
	// 0 blank, 1 marker, 2 body, 3 md marker, 4 md body, 5 marker, 6 marker (empty body, last line)
	text := "\n# %% a\nx = 1\n# %% [markdown]\n# m\n# %%\n# %%"
	cells := Parse(text)
	if len(cells) != 4 {
		t.Fatalf("Parse gave %d cells, want 4: %s", len(cells), fmtCells(cells))
	}
	for line, want := range map[int]int{
		-5: -1, -1: -1,
		0: -1, // blank prefix belongs to no cell
		1: 0,  // header line
		2: 0,
		3: 1, 4: 1,
		5: 2,
		6: 3,
		7: -1, 100: -1, // past the end
	} {
		if got := At(cells, line); got != want {
			t.Errorf("At(line %d) = %d, want %d", line, got, want)
		}
	}

	code := CodeCells(cells)
	for line, want := range map[int]int{0: -1, 1: 0, 2: 0, 3: -1, 4: -1, 5: 1, 6: 2, 7: -1} {
		if got := At(code, line); got != want {
			t.Errorf("At(CodeCells, line %d) = %d, want %d", line, got, want)
		}
	}

	// Implicit cell: line 0 belongs to it; trailing blank lines belong to the last cell.
	cells = Parse("a\n\n# %%\nb\n\n")
	for line, want := range map[int]int{0: 0, 1: 0, 2: 1, 3: 1, 4: 1, 5: 1, 6: -1} {
		if got := At(cells, line); got != want {
			t.Errorf("At(implicit doc, line %d) = %d, want %d", line, got, want)
		}
	}

	if got := At(nil, 0); got != -1 {
		t.Errorf("At(nil, 0) = %d, want -1", got)
	}
}

func TestCodeCells(t *testing.T) {
	cells := Parse("a\n# %% [markdown]\n# m\n# %% two\nb\n# <markdowncell>\n# n\n# In[ ]:\nc")
	wantKinds := []Kind{Code, Markdown, Code, Markdown, Code}
	if len(cells) != len(wantKinds) {
		t.Fatalf("Parse gave %d cells, want %d: %s", len(cells), len(wantKinds), fmtCells(cells))
	}
	for i, k := range wantKinds {
		if cells[i].Kind != k {
			t.Errorf("cell %d kind = %d, want %d", i, cells[i].Kind, k)
		}
	}
	code := CodeCells(cells)
	var got []string
	for _, c := range code {
		got = append(got, fmt.Sprintf("%d:%s:%s", c.Index, c.Title, c.Code))
	}
	// Index keeps the position among all cells.
	want := []string{"0::a", "2:two:b", "4::c"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CodeCells = %q, want %q", got, want)
	}
	if !reflect.DeepEqual(code[1], cells[2]) {
		t.Errorf("CodeCells changed a cell: %+v vs %+v", code[1], cells[2])
	}

	if n := len(CodeCells(Parse("# %% [md]\n# a\n# <markdowncell>\n"))); n != 0 {
		t.Errorf("CodeCells of an all-markdown doc has %d cells, want 0", n)
	}
	if n := len(CodeCells(nil)); n != 0 {
		t.Errorf("CodeCells(nil) has %d cells", n)
	}
}

func TestUTF16Len(t *testing.T) {
	for s, want := range map[string]int{
		"":         0,
		"abc":      3,
		"\t":       1,
		"é":        1,
		"名前":       2,
		"😀":        2,
		"a😀b":      4,
		"\xff":     1, // invalid byte: one U+FFFD
		"\xed\xa0": 2,
	} {
		if got := utf16Len(s); got != want {
			t.Errorf("utf16Len(%q) = %d, want %d", s, got, want)
		}
	}
}

func fmtCells(cs []Cell) string {
	if cs == nil {
		return "nil"
	}
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "\n  %+v", c)
	}
	return b.String()
}

// benchDoc is a notebook of 200 cells (about 40 KB): code, comments,
// strings on one line and across lines.
var benchDoc = strings.Repeat("# %% Load\n"+
	"import os  # don't\n"+
	"def f(x):\n    \"\"\"Doc.\n\n    # %% not a marker\n    \"\"\"\n    return f'{x!r:>10}' + \"#\"\n"+
	"\n# %% [markdown]\n# Some *text*, it's fine.\n\n", 200)

// BenchmarkParse is the cost of splitting a document, paid once per
// document version that needs its cells.
func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(benchDoc)))
	b.ReportAllocs()
	for b.Loop() {
		Parse(benchDoc)
	}
}
