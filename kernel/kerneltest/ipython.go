package kerneltest

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// IPythonCell is a code cell of an IPython corpus notebook with what
// IPython showed for it (scripts/record-ipython.py).
type IPythonCell struct {
	Title    string            `json:"title"`
	Stdout   string            `json:"stdout"`
	Stderr   string            `json:"stderr"`
	Value    map[string]string `json:"value"`
	Displays []struct {
		Data map[string]string `json:"data"`
	} `json:"displays"`
	EName  *string `json:"ename"`
	EValue *string `json:"evalue"`
	// NextInput is the text a magic set as the next input (%load): a
	// kernel's set_next_input payload, which the container's shell shows
	// as a display output with the payload in its metadata.
	NextInput *struct {
		Text    string `json:"text"`
		Replace bool   `json:"replace"`
	} `json:"next_input"`
	// Payloads are the edit_magic payloads %edit sent (a kernel opens no
	// editor), their file relative to the notebook's folder.
	Payloads []editPayload `json:"payloads"`
	Code     string        `json:"-"`
	// Varies is set when a second recording (NAME.again.json, made with
	// another hash seed) differs: IPython itself does not show one answer
	// (unseeded random numbers), so the cell is not compared.
	Varies bool `json:"-"`
}

type editPayload struct {
	Source     string `json:"source"`
	Filename   string `json:"filename"`
	LineNumber any    `json:"line_number"`
}

// editPayloadOf is the edit_magic payload a display carries in its
// metadata (the container's shell sends it so), if it is one.
func editPayloadOf(d contract.Display) (editPayload, bool) {
	var meta struct {
		Payload *editPayload `json:"payload"`
	}
	if len(d.Metadata) == 0 || json.Unmarshal(d.Metadata, &meta) != nil || meta.Payload == nil || meta.Payload.Source != "edit_magic" {
		return editPayload{}, false
	}
	return *meta.Payload, true
}

// IPythonNotebook is a corpus notebook: its path and its cells.
type IPythonNotebook struct {
	Path  string
	Cells []IPythonCell
}

// CorpusEnv names a folder of other notebooks recorded by
// scripts/record-ipython.py (scripts/public-notebooks.sh makes one from
// .ipynb files) for the corpus tests to run in place of corpus/ipython.
const CorpusEnv = "BACKYARD_IPYTHON_CORPUS"

// IPythonCorpusDir is the folder the corpus tests read: $BACKYARD_IPYTHON_CORPUS
// when set, else dir.
func IPythonCorpusDir(dir string) string {
	if d := os.Getenv(CorpusEnv); d != "" {
		return d
	}
	return dir
}

// IPythonCorpus reads the notebooks of dir (corpus/ipython).
func IPythonCorpus(t testing.TB, dir string) []IPythonNotebook {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.py"))
	if len(files) == 0 {
		t.Fatalf("no notebooks in %s", dir)
	}
	var out []IPythonNotebook
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var exp struct {
			Cells []IPythonCell `json:"cells"`
		}
		data, err := os.ReadFile(strings.TrimSuffix(f, ".py") + ".expected.json")
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &exp); err != nil {
			t.Fatal(err)
		}
		code := cells.CodeCells(cells.Parse(string(src)))
		if len(code) != len(exp.Cells) {
			t.Fatalf("%s: %d cells, %d recorded", f, len(code), len(exp.Cells))
		}
		lines := strings.Split(string(src), "\n")
		for i, c := range code {
			exp.Cells[i].Code = strings.Join(lines[c.StartLine:c.EndLine], "\n")
		}
		if data, err := os.ReadFile(strings.TrimSuffix(f, ".py") + ".again.json"); err == nil {
			var again struct {
				Cells []IPythonCell `json:"cells"`
			}
			if err := json.Unmarshal(data, &again); err != nil || len(again.Cells) != len(exp.Cells) {
				t.Fatalf("%s.again.json: %v, %d cells", f, err, len(again.Cells))
			}
			for i := range exp.Cells {
				exp.Cells[i].Varies = CompareIPython(exp.Cells[i], again.Cells[i].asResult()) != ""
			}
		}
		out = append(out, IPythonNotebook{Path: f, Cells: exp.Cells})
	}
	return out
}

// asResult is the recorded cell as a kernel's result, to compare two
// recordings by the rules a kernel's result is compared by.
func (c IPythonCell) asResult() kernel.Result {
	r := kernel.Result{Status: kernel.StatusOK, Stdout: c.Stdout, Stderr: c.Stderr}
	if c.Value != nil {
		mime := maps.Clone(c.Value)
		delete(mime, "text/plain")
		r.Value = &contract.Value{Text: c.Value["text/plain"], MIME: mime}
	}
	for _, d := range c.Displays {
		r.Displays = append(r.Displays, contract.Display{Data: d.Data})
	}
	if c.NextInput != nil {
		meta, _ := json.Marshal(map[string]any{"payload": map[string]any{"source": "set_next_input", "replace": c.NextInput.Replace}})
		r.Displays = append(r.Displays, contract.Display{Data: map[string]string{"text/plain": c.NextInput.Text}, Metadata: meta})
	}
	for _, p := range c.Payloads {
		p.Filename = "/" + p.Filename
		meta, _ := json.Marshal(map[string]any{"payload": p})
		r.Displays = append(r.Displays, contract.Display{Data: map[string]string{"text/plain": p.Filename}, Metadata: meta})
	}
	if c.EName != nil {
		r.Status = kernel.StatusError
		r.Error = &contract.ExecutionError{EName: *c.EName, EValue: syntaxMessage(*c.EName, *c.EValue)}
	}
	return r
}

// timing is a duration as %time and %timeit print it: compared by shape
// (IPython's three significant digits print 999.7 ns as 1e+03 ns).
var timing = regexp.MustCompile(`\d+(\.\d+)?(e\+\d+)? (s|ms|μs|ns)\b`)

// loops is %timeit's loop count, which it picks by how fast the
// statement ran (a faster machine runs more loops).
var loops = regexp.MustCompile(`\b[\d,]+ (loops?) each\)`)

// cellFile is the name IPython compiles a cell under, its execution count
// and a hash of its code; the container's driver names it <cell-N>.
var cellFile = regexp.MustCompile(`<ipython-input-(\d+)-[0-9a-f]+>`)

// slowest is %timeit's warning about uneven runs, which a busy machine
// prints at random.
var slowest = regexp.MustCompile(`(?m)^The slowest run took .*\n`)

// profileRow is a row of %prun's table (pstats): its four times are
// compared by shape, and rows by their calls and function alone, in any
// order (rows whose times tie sort in the order the profiler met them).
var (
	profileRow   = regexp.MustCompile(`(?m)^( *\d+(?:/\d+)?) +\d+\.\d{3} +\d+\.\d{3} +\d+\.\d{3} +\d+\.\d{3} (.*)$`)
	profileTotal = regexp.MustCompile(`(?m)^( +\d+ function calls(?: \(\d+ primitive calls\))? in )\d+\.\d{3}( seconds)$`)
)

// profiles is s with %prun's tables by shape.
func profiles(s string) string {
	if !profileRow.MatchString(s) {
		return s
	}
	s = profileTotal.ReplaceAllString(s, "${1}T${2}")
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && profileRow.MatchString(lines[j]) {
			lines[j] = profileRow.ReplaceAllString(lines[j], "${1} T ${2}")
			j++
		}
		slices.Sort(lines[i:j])
		i = max(j, i+1)
	}
	return strings.Join(lines, "\n")
}

// installed is the path of a file of a Python installation, as help's
// File line and a module's repr name it: compared from lib/pythonX.Y/ on
// (where Python is installed differs by machine: a home folder, /usr).
var installed = regexp.MustCompile(`(?m)(^File: +|<module '[^']*' from ')[^\s']*?/(lib/python3\.\d+/)`)

// cellFileLine is help's File line for an object a cell defined: the
// recording names the cell in its temporary folder, a kernel its own file
// of the cell; the container's help leaves the line out.
var cellFileLine = regexp.MustCompile(`(?m)^File: +[^\n]*<ipython-input-\d+-[0-9a-f]+>\n`)

// shown is a cell's output as compared: durations, %timeit's loop counts
// and profiles by shape, cells' file names by their execution count,
// installed files from lib/pythonX.Y/ on, help's File line for a cell's
// object left out, and line ends as pipes give them (IPython runs !cmd on
// a terminal, which ends lines with \r\n; the container runs it through
// pipes).
func shown(s string) string {
	s = cellFileLine.ReplaceAllString(s, "")
	s = installed.ReplaceAllString(s, "${1}${2}")
	s = slowest.ReplaceAllString(strings.ReplaceAll(s, "\r\n", "\n"), "")
	s = loops.ReplaceAllString(timing.ReplaceAllString(s, "T"), "N loops each)")
	return profiles(cellFile.ReplaceAllString(s, "<cell-$1>"))
}

// CompareIPython says how r differs from what IPython showed; "" when it
// does not.
func CompareIPython(want IPythonCell, r kernel.Result) string {
	var diffs []string
	check := func(what, w, g string) {
		if shown(w) != shown(g) {
			diffs = append(diffs, what+" "+jsonString(g)+", IPython "+jsonString(w))
		}
	}
	check("stdout", want.Stdout, r.Stdout)
	check("stderr", want.Stderr, r.Stderr)
	var value map[string]string
	if r.Value != nil {
		value = maps.Clone(r.Value.MIME)
		if value == nil {
			value = map[string]string{}
		}
		value["text/plain"] = r.Value.Text
	}
	if (want.Value == nil) != (value == nil) || !maps.Equal(images(want.Value), images(value)) {
		diffs = append(diffs, "value "+jsonString(value)+", IPython "+jsonString(want.Value))
	}
	var displays, wantDisplays []map[string]string
	var next []string
	var payloads []editPayload
	for _, d := range r.Displays {
		if text, replace, ok := d.NextInput(); ok {
			next = append(next, fmt.Sprintf("%q replace=%v", text, replace))
			continue
		}
		if p, ok := editPayloadOf(d); ok {
			payloads = append(payloads, p)
			continue
		}
		displays = append(displays, images(d.Data))
	}
	var wantNext []string
	if want.NextInput != nil {
		wantNext = []string{fmt.Sprintf("%q replace=%v", want.NextInput.Text, want.NextInput.Replace)}
	}
	if !slices.Equal(next, wantNext) {
		diffs = append(diffs, "next input "+jsonString(next)+", IPython "+jsonString(wantNext))
	}
	if !samePayloads(want.Payloads, payloads) {
		diffs = append(diffs, "payloads "+jsonString(payloads)+", IPython "+jsonString(want.Payloads))
	}
	for _, d := range want.Displays {
		wantDisplays = append(wantDisplays, images(d.Data))
	}
	if jsonString(displays) != jsonString(wantDisplays) {
		diffs = append(diffs, "displays "+jsonString(displays)+", IPython "+jsonString(wantDisplays))
	}
	ename, evalue := "", ""
	if r.Error != nil {
		ename, evalue = r.Error.EName, r.Error.EValue
	}
	if want.EName != nil && (ename != *want.EName || evalue != syntaxMessage(*want.EName, *want.EValue)) || want.EName == nil && ename != "" {
		diffs = append(diffs, "error "+ename+": "+evalue)
	}
	return strings.Join(diffs, "; ")
}

// samePayloads compares %edit's payloads: the file by its path in the
// notebook's folder (the folder itself differs), the line as sent.
func samePayloads(want, got []editPayload) bool {
	return slices.EqualFunc(want, got, func(w, g editPayload) bool {
		return w.Source == g.Source && strings.HasSuffix(g.Filename, "/"+w.Filename) && jsonString(w.LineNumber) == jsonString(g.LineNumber)
	})
}

// syntaxFile is the end of a SyntaxError's str(): the cell's file name,
// which each kernel names its own way, and the line.
var syntaxFile = regexp.MustCompile(` \([^()]*, line \d+\)$`)

// syntaxMessage is the evalue a kernel reports for IPython's: a
// SyntaxError's message, without the file and line (the traceback has
// them).
func syntaxMessage(ename, evalue string) string {
	if ename != "SyntaxError" {
		return evalue
	}
	return syntaxFile.ReplaceAllString(evalue, "")
}

// images is a bundle with its images compared by their type only (the
// bytes depend on matplotlib's version).
func images(b map[string]string) map[string]string {
	out := maps.Clone(b)
	for k := range out {
		if strings.HasPrefix(k, "image/") && k != "image/svg+xml" {
			out[k] = "(image)"
		}
	}
	return out
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
