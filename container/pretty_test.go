package container

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// The driver goes in as arguments under the kernel's 128 KiB limit on one
// (MAX_ARG_STRLEN), which together are its source.
func TestDriverArgumentsFit(t *testing.T) {
	cmd := driverCommand("python3")
	for _, a := range cmd {
		if len(a) >= 128<<10 {
			t.Fatalf("an argument of %d bytes, over the kernel's limit", len(a))
		}
	}
	if strings.Join(cmd[3:], "") != driverSource {
		t.Fatal("the arguments are not the driver's source")
	}
}

var lineMagic = regexp.MustCompile(`(?m)^%(\w+) ?(.*)$`)

// The values corpora (corpus/ipython/values*.py) on the host's python3:
// each value's and display's text/plain is what IPython showed. Cells with
// a line magic have it as the host's transformation gives it.
func TestDriverPrettyCorpus(t *testing.T) {
	for _, nb := range []string{"values", "values_more"} {
		src, err := os.ReadFile("../corpus/ipython/" + nb + ".py")
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile("../corpus/ipython/" + nb + ".expected.json")
		if err != nil {
			t.Fatal(err)
		}
		var exp struct {
			Cells []struct {
				Title    string            `json:"title"`
				Line     int               `json:"line"`
				Value    map[string]string `json:"value"`
				Displays []struct {
					Data map[string]string `json:"data"`
				} `json:"displays"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(data, &exp); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		d := startLocal(t)
		for i, c := range exp.Cells {
			end := len(lines)
			if i+1 < len(exp.Cells) {
				end = exp.Cells[i+1].Line - 1
			}
			code := strings.Join(lines[c.Line:end], "\n")
			code = lineMagic.ReplaceAllString(code, "get_ipython().run_line_magic('$1', '$2')")
			outs, done := d.run(code)
			if want := c.Value["text/plain"]; done.Status != "ok" || valueText(done) != want {
				t.Errorf("%s: %s (%s) value:\n%s\nIPython:\n%s", nb, c.Title, done.Status, valueText(done), want)
			}
			var shown []string
			for _, m := range outs {
				if m.T == msgDisplay {
					shown = append(shown, m.MIME["text/plain"])
				}
			}
			var want []string
			for _, w := range c.Displays {
				want = append(want, w.Data["text/plain"])
			}
			if strings.Join(shown, "\x00") != strings.Join(want, "\x00") {
				t.Errorf("%s: %s displays %q, IPython %q", nb, c.Title, shown, want)
			}
		}
	}
}

// The printer's layout on random sequences of its primitives, as IPython
// laid them out (pysrc/testdata/pretty.json, scripts/record-pretty.py).
func TestPrettyLayoutAsIPython(t *testing.T) {
	harness := prettyPy + `
import json, sys
sys.path.insert(0, "../scripts")
from pretty_ops import replay
cases = json.load(open(sys.argv[1]))["cases"]
bad = 0
for c in cases:
    p = _Pretty(max_width=c["width"])
    replay(p, c["ops"])
    if "".join(p.out) != c["text"]:
        bad += 1
        print(json.dumps(c))
print(len(cases) - bad, "of", len(cases))
`
	out, err := exec.Command(hostPython(t), "-c", harness, "../pysrc/testdata/pretty.json").CombinedOutput()
	if err != nil || !strings.HasSuffix(string(out), "250 of 250\n") {
		t.Fatalf("%v\n%s", err, out)
	}
}
