package cells

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// testdata/vectors.json holds texts and the cells Parse finds in them. The
// editors' own parsers (editors/neovim/lua/backyard/cells.lua,
// editors/vscode/src/cells.ts) are tested against it, so all three split
// cells alike; TestVectors keeps it in step with Parse.
const vectorsFile = "testdata/vectors.json"

var update = flag.Bool("update", false, "rewrite "+vectorsFile+" from Parse")

type vectorCell struct {
	Kind   string `json:"kind"`
	Header int    `json:"header"`
	Start  int    `json:"start"`
	Stop   int    `json:"stop"`
}

type vector struct {
	Text  string       `json:"text"`
	Cells []vectorCell `json:"cells"`
}

// vectorPieces are the lines random texts are made of: markers and lines
// that look like them, strings opened and closed with every prefix,
// comments with quotes, nbconvert's header, CRLF and non-ASCII text.
var vectorPieces = []string{
	"# %%", "#%%", "# %% title", "# %% [markdown]", "# %% [md] t", "# %% t [markdown]", "# In[ ]:", "# In[7]",
	"# In[x]:", "# <codecell>", "# <markdowncell>", "# %%x", " # %%", "## %%", "#  %%  ", "# %%\t", "# %% \r",
	"x = 1", "x = 1\r", "", "  ", "\t", "\v", "print('é😀')", "# comment", "# it's", "#!/usr/bin/env python",
	"# coding: utf-8", `"""`, "'''", `s = """doc`, "r'''", `b""" # %%`, `f"""{x}`, `f"""{"""`, `}"""`,
	`""" + rb'''`, `x = 'a\`, `y = "#"  # %%`, "t = f'{x!r}'", "s = '", `\`, `Rb"""`, "u'''x'''",
	`"""Doc."""`, "f'{", "}'", `# %% """`, "x = (1,", "2)", "ü = '''", "\ufeff# %%", `F"""{'''`,
	`f"""{x:"""`, "f'{{'", `rf"\{`, `f"\N{EM DASH}{`, `x = 0x"`, `1f"{"`, `...f"{"`, `f"{'''`, "# %% '''",
	"t'{x!r:>{w}}'", "f'{x # c", `br"\"`, `"\\`, "\r", `f"{"a"}" # %%`, `f"""{x!r}}`, "Fr'''{",
}

// vectorTexts are the texts of parseCases and random ones from vectorPieces,
// the same on every run.
func vectorTexts() []string {
	var texts []string
	for _, tc := range parseCases {
		// An editor has no empty text: an empty buffer is one blank line.
		if tc.text != "" {
			texts = append(texts, tc.text)
		}
	}
	r := rand.New(rand.NewPCG(12, 6))
	for range 400 {
		lines := make([]string, 1+r.IntN(14))
		for i := range lines {
			lines[i] = vectorPieces[r.IntN(len(vectorPieces))]
		}
		if text := strings.Join(lines, "\n"); text != "" {
			texts = append(texts, text)
		}
	}
	return texts
}

func vectors() []vector {
	var vs []vector
	for _, text := range vectorTexts() {
		v := vector{Text: text, Cells: []vectorCell{}}
		for _, c := range Parse(text) {
			kind := map[Kind]string{Code: "code", Markdown: "markdown", Raw: "raw"}[c.Kind]
			v.Cells = append(v.Cells, vectorCell{kind, c.HeaderLine, c.StartLine, c.EndLine})
		}
		vs = append(vs, v)
	}
	return vs
}

// encodeVectors writes one vector per line, so a change shows as a diff of
// the texts it concerns.
func encodeVectors(vs []vector) []byte {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, v := range vs {
		var line bytes.Buffer
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			panic(err)
		}
		b.Write(bytes.TrimSuffix(line.Bytes(), []byte("\n")))
		if i+1 < len(vs) {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return b.Bytes()
}

func TestVectors(t *testing.T) {
	vs := vectors()
	want := encodeVectors(vs)
	if *update {
		if err := os.WriteFile(vectorsFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what Parse gives: run go test ./cells -run TestVectors -update", vectorsFile)
	}

	// The editors are only tested on what the vectors hold: make sure they
	// hold the hard cases.
	var hidden, commentHeader, codeHeader int
	for _, v := range vs {
		lines := splitLines(v.Text)
		headers := map[int]bool{}
		for _, c := range v.Cells {
			headers[c.Header] = true
		}
		for i, l := range lines {
			if _, _, ok := parseMarker(l); ok && !headers[i] {
				hidden++
				break
			}
		}
		if len(v.Cells) > 0 && v.Cells[0].Header > 0 && lastNonBlank(lines, 0, v.Cells[0].Header) >= 0 {
			commentHeader++
		}
		if len(v.Cells) > 1 && v.Cells[0].Header == -1 {
			codeHeader++
		}
	}
	for what, n := range map[string]int{
		"a marker-like line inside a string": hidden,
		"a comment-only header":              commentHeader,
		"a code header":                      codeHeader,
	} {
		if n < 20 {
			t.Errorf("only %d vectors have %s", n, what)
		}
	}
}
