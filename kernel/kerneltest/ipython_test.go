package kerneltest

import (
	"encoding/json"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// Two %prun tables agree when only their times and the order of rows
// differ; their calls and functions are compared.
func TestProfilesByShape(t *testing.T) {
	ipy := "         4 function calls in 0.000 seconds\n\n   Ordered by: internal time\n\n" +
		"   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n" +
		"        1    0.000    0.000    0.000    0.000 {built-in method builtins.exec}\n" +
		"        1    0.000    0.000    0.000    0.000 <string>:1(<module>)\n "
	ours := "         4 function calls in 0.001 seconds\n\n   Ordered by: internal time\n\n" +
		"   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n" +
		"        1    0.001    0.001    0.001    0.001 <string>:1(<module>)\n" +
		"        1    0.000    0.000    0.002    0.002 {built-in method builtins.exec}\n "
	if shown(ipy) != shown(ours) {
		t.Errorf("same shape differs:\n%s\n%s", shown(ipy), shown(ours))
	}
	other := "         4 function calls in 0.000 seconds\n\n   Ordered by: internal time\n\n" +
		"   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n" +
		"        2    0.000    0.000    0.000    0.000 {built-in method builtins.exec}\n" +
		"        1    0.000    0.000    0.000    0.000 <string>:1(<module>)\n "
	if shown(ipy) == shown(other) {
		t.Error("a different call count is not seen")
	}
}

// %load's next input is a display whose metadata holds the kernel's
// set_next_input payload; it is compared with IPython's, not as a display.
func TestNextInputCompared(t *testing.T) {
	var want IPythonCell
	if err := json.Unmarshal([]byte(`{"stdout":"","stderr":"","value":null,"displays":[],"ename":null,"evalue":null,"next_input":{"text":"# %load f.py\nx = 1\n","replace":true}}`), &want); err != nil {
		t.Fatal(err)
	}
	meta := []byte(`{"payload":{"source":"set_next_input","replace":true}}`)
	r := kernel.Result{Status: kernel.StatusOK, Displays: []contract.Display{{Data: map[string]string{"text/plain": "# %load f.py\nx = 1\n"}, Metadata: meta}}}
	if diff := CompareIPython(want, r); diff != "" {
		t.Errorf("same next input: %s", diff)
	}
	r.Displays[0].Data["text/plain"] = "x = 2\n"
	if CompareIPython(want, r) == "" {
		t.Error("a different next input is not seen")
	}
	if CompareIPython(IPythonCell{}, r) == "" {
		t.Error("a next input IPython did not set is not seen")
	}
}

// %edit's payload is a display whose metadata holds it; its file is
// compared by its path in the notebook's folder, its line as sent.
func TestEditPayloadCompared(t *testing.T) {
	var want IPythonCell
	if err := json.Unmarshal([]byte(`{"stdout":"","stderr":"","value":null,"displays":[],"ename":null,"evalue":null,"payloads":[{"source":"edit_magic","filename":"sub/f.py","line_number":4}]}`), &want); err != nil {
		t.Fatal(err)
	}
	edit := func(file, line string) kernel.Result {
		meta := []byte(`{"payload":{"source":"edit_magic","filename":"` + file + `","line_number":` + line + `}}`)
		return kernel.Result{Status: kernel.StatusOK, Displays: []contract.Display{{Data: map[string]string{"text/plain": file}, Metadata: meta}}}
	}
	if diff := CompareIPython(want, edit("/home/me/nb/sub/f.py", "4")); diff != "" {
		t.Errorf("same payload: %s", diff)
	}
	for _, r := range []kernel.Result{edit("/home/me/nb/f.py", "4"), edit("/home/me/nb/sub/f.py", `"4"`), {Status: kernel.StatusOK}} {
		if CompareIPython(want, r) == "" {
			t.Errorf("a different payload is not seen: %+v", r.Displays)
		}
	}
}

// A SyntaxError's evalue is its message: the cell's file name in IPython's
// str() is each kernel's own.
func TestSyntaxErrorComparedByMessage(t *testing.T) {
	ename, evalue := "SyntaxError", "'await' outside function (<ipython-input-19-aefda9a65743>, line 2)"
	want := IPythonCell{EName: &ename, EValue: &evalue}
	r := kernel.Result{Status: kernel.StatusError, Error: &contract.ExecutionError{EName: "SyntaxError", EValue: "'await' outside function"}}
	if diff := CompareIPython(want, r); diff != "" {
		t.Errorf("same message: %s", diff)
	}
	if r.Error.EValue = "invalid syntax"; CompareIPython(want, r) == "" {
		t.Error("a different message is not seen")
	}
}

// %timeit's loop count and a cell's file name are compared by shape: the
// count follows the machine's speed, the name each kernel's own (IPython's
// carries a hash of the code, ours the execution count alone).
func TestTimeitAndCellFileByShape(t *testing.T) {
	ipy := "2.16 μs ± 320 ns per loop (mean ± std. dev. of 7 runs, 100,000 loops each)\n<ipython-input-17-444997ff90a3>:3: UserWarning: w\n"
	ours := "883 ns ± 180 ns per loop (mean ± std. dev. of 7 runs, 1 loop each)\n<cell-17>:3: UserWarning: w\n"
	if shown(ipy) != shown(ours) {
		t.Errorf("same shape differs:\n%s\n%s", shown(ipy), shown(ours))
	}
	for _, other := range []string{
		"883 ns ± 180 ns per loop (mean ± std. dev. of 5 runs, 1 loop each)\n<cell-17>:3: UserWarning: w\n",
		"883 ns ± 180 ns per loop (mean ± std. dev. of 7 runs, 1 loop each)\n<cell-16>:3: UserWarning: w\n",
	} {
		if shown(ipy) == shown(other) {
			t.Errorf("a different run count or cell is not seen: %q", other)
		}
	}
}

// A recording read back as a kernel's result matches itself, for every
// cell of the corpus (so a second recording that differs marks a cell
// whose answer varies in IPython itself), and a changed one does not.
func TestRecordingAsResult(t *testing.T) {
	n := 0
	for _, nb := range IPythonCorpus(t, "../../corpus/ipython") {
		for i, c := range nb.Cells {
			n++
			if diff := CompareIPython(c, c.asResult()); diff != "" {
				t.Errorf("%s cell %d: %s", nb.Path, i, diff)
			}
			if c.Varies {
				t.Errorf("%s cell %d varies without a second recording", nb.Path, i)
			}
			c.Stdout += "x"
			if CompareIPython(nb.Cells[i], c.asResult()) == "" {
				t.Errorf("%s cell %d: a changed recording is not seen", nb.Path, i)
			}
		}
	}
	if n < 500 {
		t.Fatalf("%d cells", n)
	}
}
