// Package canary has the harmless probes of the attack tests: a secret put
// in the server's environment and in the credential files of a fake home
// folder, a cell that tries to read it (and the host's /proc, /dev and
// /sys) through a kernel, and the checks that the kernel got CPython's
// answer for a file that is not there and that the secret is in nothing
// the server wrote.
package canary

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/monty"
)

// EnvVar holds the secret in the server's environment.
const EnvVar = "BACKYARD_CANARY_SECRET"

// CredentialFiles are the files of the fake home that hold the secret, as
// people keep them (the default hidden names cover each).
var CredentialFiles = []string{
	".git-credentials", ".netrc", ".docker/config.json", ".kube/config", ".config/gh/hosts.yml",
	".config/gcloud/credentials.db", ".azure/accessTokens.json", ".pypirc", ".npmrc", ".gnupg/secring.gpg",
	".bash_history", ".python_history", ".password-store/api.gpg", ".ssh/id_ed25519", ".aws/credentials", ".env",
}

// systemFiles are host files a kernel must not reach, whatever its
// workspace: the server's environment and command line, its protocol
// stream, the kernel's own settings.
var systemFiles = []string{
	"/proc/self/environ", "/proc/self/cmdline", "/proc/1/environ", "/proc/self/fd/0", "/proc/self/root/etc/hostname",
	"/dev/stdin", "/dev/fd/0", "/dev/null", "/sys/kernel/hostname",
}

// Canary is one attack's secret and fake home.
type Canary struct {
	Secret string
	// Home is the fake home folder (HOME in Env): the credential files,
	// and Project, a project folder (it has .git) with files beside its
	// notebooks.
	Home    string
	Project string
}

// New makes a secret and a fake home holding it.
func New(t testing.TB) *Canary {
	t.Helper()
	b := make([]byte, 12)
	rand.Read(b)
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &Canary{Secret: "canary-" + hex.EncodeToString(b), Home: home, Project: filepath.Join(home, "proj")}
	for _, name := range CredentialFiles {
		write(t, filepath.Join(home, name), "token="+c.Secret+"\n")
	}
	write(t, filepath.Join(c.Project, ".git", "config"), "[credential]\n\thelper = store\n")
	write(t, filepath.Join(c.Project, "data.csv"), "a,b\n1,2\n")
	return c
}

func write(t testing.TB, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Env is the environment of a server under attack: this process's, with
// HOME the fake home, the secret set, and MONTY_BIN the worker found
// before HOME moved.
func (c *Canary) Env(t testing.TB) []string {
	t.Helper()
	bin, err := monty.Find("")
	if err != nil {
		t.Fatalf("%v (run `make setup`)", err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, EnvVar+"=") && !strings.HasPrefix(kv, "MONTY_BIN=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+c.Home, EnvVar+"="+c.Secret, "MONTY_BIN="+bin)
}

// Setenv makes this process's environment Env's (for a server in the
// test's own process).
func (c *Canary) Setenv(t testing.TB) {
	t.Helper()
	for _, kv := range c.Env(t) {
		k, v, _ := strings.Cut(kv, "=")
		if os.Getenv(k) != v {
			t.Setenv(k, v)
		}
	}
}

// Paths are the files the probe tries to read.
func (c *Canary) Paths() []string {
	out := append([]string(nil), systemFiles...)
	for _, name := range CredentialFiles {
		out = append(out, filepath.Join(c.Home, name))
	}
	return append(out, "../.git-credentials", ".git/config")
}

// Probe is a cell (for Monty and CPython alike) that tries to read each of
// Paths, prints one line per path ("PATH -> what happened", the data's
// repr when it read any) and what os.listdir shows of / and of the home,
// and the secret's variable of os.environ.
func (c *Canary) Probe() string {
	var b strings.Builder
	b.WriteString("import os\ndef canary_read(p):\n    try:\n        f = open(p, 'rb')\n        data = f.read()\n        f.close()\n        return 'READ ' + repr(data[:300])\n" +
		"    except Exception as e:\n        return type(e).__name__ + ': ' + str(e)\n")
	b.WriteString("for p in [")
	for _, p := range c.Paths() {
		b.WriteString(monty.StrRepr(p) + ", ")
	}
	b.WriteString("]:\n    print(p, '->', canary_read(p))\n")
	fmt.Fprintf(&b, "for d in ['/', %s]:\n    try:\n        print(d, 'lists', sorted(os.listdir(d)))\n    except Exception as e:\n        print(d, 'lists', type(e).__name__)\n", monty.StrRepr(c.Home))
	fmt.Fprintf(&b, "print('environ', os.environ.get(%s))\n", monty.StrRepr(EnvVar))
	return b.String()
}

// BigValues is a cell binding values a variables listing must cut: big (a
// list of 3,000,000 ints), deep (lists nested 100,000 deep), strs (300
// strings of 100,000 characters) and cyc (a list that holds itself).
const BigValues = "big = list(range(3_000_000))\ndeep = []\ncur = deep\nfor _ in range(100_000):\n    n = []\n    cur.append(n)\n    cur = n\n" +
	"strs = {str(i): 'x' * 100_000 for i in range(300)}\ncyc = [1, 2]\ncyc.append(cyc)\n"

// CheckVariables checks a listing of BigValues (name → repr): each value
// cut after about 200 bytes with the marker, cyc as CPython shows it.
func CheckVariables(t testing.TB, reprs map[string]string) {
	t.Helper()
	for _, name := range []string{"big", "deep", "strs"} {
		if r := reprs[name]; !strings.HasSuffix(r, "…") || len(r) > 210 {
			t.Errorf("%s: %q", name, r)
		}
	}
	if reprs["cyc"] != "[1, 2, [...]]" {
		t.Errorf("cyc: %q", reprs["cyc"])
	}
}

// CheckNoSecret fails the test when the secret is in any of texts (what
// names where they came from).
func (c *Canary) CheckNoSecret(t testing.TB, what string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if i := strings.Index(s, c.Secret); i >= 0 {
			t.Errorf("the secret is in %s: …%s…", what, s[max(0, i-200):min(len(s), i+len(c.Secret)+50)])
		}
	}
}

// CheckFileNoSecret is CheckNoSecret for a file's content (a log).
func (c *Canary) CheckFileNoSecret(t testing.TB, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c.CheckNoSecret(t, path, string(b))
}

// CheckRefused checks the probe's output of a kernel that has no files
// at all (a batch's Monty snippet): no secret, and every read failed.
func (c *Canary) CheckRefused(t testing.TB, out string) {
	t.Helper()
	c.CheckNoSecret(t, "the probe's output", out)
	for _, p := range c.Paths() {
		if !strings.Contains(out, p+" -> ") || strings.Contains(out, p+" -> READ") {
			t.Errorf("the probe of %s was not refused:\n%s", p, out)
		}
	}
}

// CheckMonty checks the probe's output as a Monty kernel gives it: no
// secret, each path not there as CPython says it ("FileNotFoundError:
// [Errno 2] No such file or directory: …"; .git/config, hidden, too),
// the system folders and credential files absent from the listings, no
// secret in os.environ.
func (c *Canary) CheckMonty(t testing.TB, out string) {
	t.Helper()
	c.CheckNoSecret(t, "the probe's output", out)
	for _, p := range c.Paths() {
		// (The path in the message is the one the cell wrote, or relative
		// to the working directory when it lies below it.)
		want := p + " -> FileNotFoundError: [Errno 2] No such file or directory: '"
		if !strings.Contains(out, want) {
			t.Errorf("the probe of %s did not get CPython's answer for a missing file (want %q)", p, want)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, " lists ") {
			continue
		}
		for _, name := range []string{"'proc'", "'sys'", "'dev'"} {
			if strings.HasPrefix(line, "/ lists") && strings.Contains(line, name) {
				t.Errorf("/ lists %s: %s", name, line)
			}
		}
		for _, f := range CredentialFiles {
			if first, _, _ := strings.Cut(f, "/"); strings.Contains(line, "'"+first+"'") && first != ".config" {
				t.Errorf("a listing shows %s: %s", first, line)
			}
		}
	}
	if !strings.Contains(out, "environ None\n") {
		t.Errorf("os.environ has the secret's variable: %s", out)
	}
	if t.Failed() {
		t.Logf("probe output:\n%s", out)
	}
}

// Probes are single-purpose snippets (for the surfaces that report one
// result per snippet) that try to reach the secret and print what they
// found: the environment, a credential file of the home folder (the
// kernel's and the server's, by its path), the environ of the process
// and of process 1.
func (c *Canary) Probes() []string {
	return []string{
		"import os\nprint(os.environ.get(" + strconv.Quote(EnvVar) + "), sorted(os.environ))",
		"import os\nprint(open(os.path.join(os.path.expanduser('~'), " + strconv.Quote(CredentialFiles[0]) + ")).read())",
		"print(open(" + strconv.Quote(filepath.Join(c.Home, CredentialFiles[0])) + ").read())",
		"print(open('/proc/self/environ', 'rb').read())",
		"print(open('/proc/1/environ', 'rb').read())",
	}
}

// Check is CheckNoSecret for bytes.
func (c *Canary) Check(t testing.TB, where string, data []byte) {
	t.Helper()
	c.CheckNoSecret(t, where, string(data))
}
