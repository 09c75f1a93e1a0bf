package pysrc

import (
	"bufio"
	_ "embed"
	"strings"
)

//go:embed builtins.txt
var builtinsList string

var builtins = func() map[string]bool {
	m := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(builtinsList))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			m[l] = true
		}
	}
	return m
}()

// IsBuiltin reports whether name is one of CPython's built-in names
// (builtins.txt: dir(builtins) of the CPython the probes were made with).
func IsBuiltin(name string) bool { return builtins[name] }
