package auto

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/montykernel"
	"github.com/backyard-ls/backyard-ls/monty"
)

func TestApplyShims(t *testing.T) {
	cases := map[string]string{
		"round(x, 2)":                 "__backyard_round__(round, x, 2)",
		"round(x)":                    "round(x)",
		"v.round(x, 2)":               "v.round(x, 2)",
		"round(round(a, 1), 2)":       "__backyard_round__(round, __backyard_round__(round, a, 1), 2)",
		"f'{round(x, 2):.1f} {y}'":    "f'{__backyard_round__(round, x, 2):.1f} {y}'",
		"s = 'round(x, 2)'  # round(": "s = 'round(x, 2)'  # round(",
		"sys.stdout.write('a')":       "__backyard_stdio_write__(sys.stdout, 'a')",
		"sys.stderr.writelines(ls)":   "__backyard_stdio_writelines__(sys.stderr, ls)",
		"sys.stdout.flush()":          "__backyard_stdio_flush__(sys.stdout, )",
		"w = sys.stdout.write":        "w = sys.stdout.write",
		"a.sys.stdout.write('x')":     "a.sys.stdout.write('x')",
		"print(1,\n  round(x,\n  2))": "print(1,\n  __backyard_round__(round, x,\n  2))",
	}
	for code, want := range cases {
		if got, _ := applyShims(analyze(code), shims); got != want {
			t.Errorf("%q: got %q, want %q", code, got, want)
		}
	}
}

// The round shim agrees with CPython's round on values that stress it:
// exact ties, decimal-looking floats, negative digits, big and tiny values.
func TestRoundShimMatchesCPython(t *testing.T) {
	py, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		t.Skip("the reference CPython (/usr/bin/python3) is missing")
	}
	rng := rand.New(rand.NewPCG(13, 2))
	var args []string
	for i := 0; i < 3000; i++ {
		var x string
		switch i % 5 {
		case 0:
			x = fmt.Sprintf("%d.%03d", rng.IntN(2000)-1000, rng.IntN(1000)) // 2.675
		case 1:
			x = fmt.Sprintf("%d/8", rng.IntN(400)-200) // exact ties
		case 2:
			x = fmt.Sprintf("%de%d", rng.IntN(99999)-49999, rng.IntN(40)-20)
		case 3:
			x = fmt.Sprintf("%d.5", rng.IntN(2000)-1000)
		default:
			x = fmt.Sprintf("%g", rng.NormFloat64()*1e6)
		}
		args = append(args, fmt.Sprintf("(%s, %d)", x, rng.IntN(12)-4))
	}
	args = append(args, "(1e308, -1)", "(-5.0, -400)", "(0.0, 400)", "(-0.0, 2)", "(5e-324, 400)", "(1.7e308, -306)")
	code := "for x, n in [" + strings.Join(args, ", ") + "]:\n    print(repr(round(float(x), n)))\n"
	want, err := exec.Command(py, "-c", code).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, want)
	}
	bin, err := monty.Find("")
	if err != nil {
		t.Fatal(err)
	}
	w, err := monty.Start(context.Background(), montykernel.WorkerConfig(bin, kernel.DefaultLimits))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	shimmed, _ := applyShims(analyze(code), shims)
	r, _ := montykernel.RunSnippet(context.Background(), w, prelude(shims)+shimmed, kernel.DefaultLimits, true)
	if r.Status != kernel.StatusOK {
		t.Fatalf("%+v", r.Error)
	}
	got, exp := strings.Split(r.Stdout, "\n"), strings.Split(string(want), "\n")
	if len(got) != len(exp) {
		t.Fatalf("%d lines, CPython %d", len(got), len(exp))
	}
	for i := range exp {
		if got[i] != exp[i] {
			t.Errorf("round%s: shim %s, CPython %s", args[i], got[i], exp[i])
		}
	}
}
