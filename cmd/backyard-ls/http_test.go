package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Listening beyond loopback without a token is refused before anything
// starts; a token file that cannot be read, a bad address are usage
// errors. (The service itself is tested through SandboxFusion's client:
// scripts/test-http.sh.)
func TestHTTPRefusesToStart(t *testing.T) {
	t.Setenv(tokenEnv, "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:0"}, "give a bearer token"},
		{[]string{"--listen", ":0", "--token-file", filepath.Join(t.TempDir(), "none")}, "--token-file"},
		{[]string{"--listen", "nonsense"}, "--listen"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		_, stderr, code := backyard(t, append([]string{"http", "--backend", "monty"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, stderr)
		}
	}
	if _, stderr, code := backyard(t, "http", "-h"); code != 0 || !strings.Contains(stderr, "/run_code") {
		t.Errorf("http -h: exit %d, %q", code, stderr)
	}
}
