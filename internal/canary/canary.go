// Package canary is for attack tests: a secret put in the environment and
// the home folder of a server under test, which must then appear in none
// of its output, records or logs.
package canary

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// EnvName is the environment variable that holds the secret.
const EnvName = "BACKYARD_CANARY_TOKEN"

// File is the secret's file in the home folder.
const File = ".canary-credentials"

// Canary is one test's secret.
type Canary struct {
	Secret string
	// Home is the server's HOME; it holds File.
	Home string
}

// New makes a secret and a home folder that holds it.
func New(t testing.TB) *Canary {
	t.Helper()
	c := &Canary{Secret: "canary-" + rand.Text(), Home: t.TempDir()}
	if err := os.WriteFile(filepath.Join(c.Home, File), []byte("token="+c.Secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return c
}

// Env is the environment of a server under test: this process's, with
// the secret in EnvName and HOME.
func (c *Canary) Env() []string {
	env := []string{EnvName + "=" + c.Secret, "HOME=" + c.Home}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, EnvName+"=") {
			env = append(env, kv)
		}
	}
	return env
}

// Probes are Python snippets that try to reach the secret and print what
// they found: the environment, the home folder (the kernel's and the
// server's, by its path), the environ of the process and of process 1.
func (c *Canary) Probes() []string {
	return []string{
		"import os\nprint(os.environ.get(" + strconv.Quote(EnvName) + "), sorted(os.environ))",
		"import os\nprint(open(os.path.join(os.path.expanduser('~'), " + strconv.Quote(File) + ")).read())",
		"print(open(" + strconv.Quote(filepath.Join(c.Home, File)) + ").read())",
		"print(open('/proc/self/environ', 'rb').read())",
		"print(open('/proc/1/environ', 'rb').read())",
	}
}

// Check fails the test when data holds the secret.
func (c *Canary) Check(t testing.TB, where string, data []byte) {
	t.Helper()
	if strings.Contains(string(data), c.Secret) {
		t.Errorf("the canary secret appears in %s", where)
	}
}
