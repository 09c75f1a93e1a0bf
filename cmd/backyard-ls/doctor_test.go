package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/monty"
)

// doctorJSON runs `doctor --json` with extra args and env and decodes its
// stdout, which must be exactly one JSON object.
func doctorJSON(t *testing.T, env []string, args ...string) (map[string]any, int) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"doctor", "--json"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var rep map[string]any
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value on stdout:\n%s", out)
	}
	return rep, code
}

// shape is the sorted list of key paths of a decoded JSON object, e.g.
// "monty.testCell.ok"; arrays contribute the keys of their objects.
func shape(v any, prefix string, out map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			out[prefix+k] = true
			shape(x, prefix+k+".", out)
		}
	case []any:
		for _, x := range v {
			shape(x, prefix, out)
		}
	}
}

func keys(v any) []string {
	m := map[string]bool{}
	shape(v, "", m)
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// documented is the example object of README's "doctor --json" section.
func documented(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "### `backyard-ls doctor --json`")
	if !ok {
		t.Fatal("README has no doctor --json section")
	}
	_, block, _ := strings.Cut(sec, "```json\n")
	block, _, _ = strings.Cut(block, "```")
	var doc map[string]any
	if err := json.Unmarshal([]byte(block), &doc); err != nil {
		t.Fatalf("README's doctor --json example is not JSON: %v", err)
	}
	return doc
}

func get(m map[string]any, path string) any {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		mm, _ := v.(map[string]any)
		v = mm[k]
	}
	return v
}

func docker(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).Output()
	if err != nil {
		t.Fatalf("docker %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// The worker and the engine of this machine, as the report gives them and
// as their own tools (monty --version, the docker CLI) tell it.
func TestDoctorJSON(t *testing.T) {
	image := containertest.Image()
	rep, code := doctorJSON(t, nil, "--image", image)
	if code != 0 || rep["ok"] != true {
		t.Fatalf("exit %d, ok %v", code, rep["ok"])
	}
	if want := keys(documented(t)); !slices.Equal(keys(rep), want) {
		t.Errorf("keys differ from README's example:\n got  %v\n want %v", keys(rep), want)
	}

	out, _, _ := backyard(t, "version")
	if v := strings.Fields(out)[1]; rep["version"] != v {
		t.Errorf("version %v, `backyard-ls version` says %s", rep["version"], v)
	}

	path, _ := get(rep, "monty.path").(string)
	if want, err := monty.Find(""); err != nil || path != want {
		t.Errorf("monty.path %q, want %q (%v)", path, want, err)
	}
	vout, err := exec.Command(path, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", path, err)
	}
	if f := strings.Fields(string(vout)); get(rep, "monty.version") != f[len(f)-1] || get(rep, "monty.version") != monty.RuntimeVersion {
		t.Errorf("monty.version %v; the worker says %q, pinned %s", get(rep, "monty.version"), vout, monty.RuntimeVersion)
	}
	if get(rep, "monty.protocol") != float64(monty.ProtocolVersion) || get(rep, "monty.supported") != monty.RuntimeVersion {
		t.Errorf("protocol %v, supported %v", get(rep, "monty.protocol"), get(rep, "monty.supported"))
	}
	if get(rep, "monty.testCell.ok") != true || get(rep, "monty.testCell.durationMs").(float64) <= 0 || get(rep, "monty.error") != "" {
		t.Errorf("test cell %v, error %v", get(rep, "monty.testCell"), get(rep, "monty.error"))
	}
	found := false
	for _, c := range get(rep, "monty.candidates").([]any) {
		c := c.(map[string]any)
		found = found || (c["path"] == path && c["found"] == true)
	}
	if !found {
		t.Errorf("the worker used is not among the found candidates: %v", get(rep, "monty.candidates"))
	}

	var server struct{ Version, APIVersion, Os, Arch string }
	if err := json.Unmarshal([]byte(docker(t, "version", "--format", "{{json .Server}}")), &server); err != nil {
		t.Fatal(err)
	}
	if get(rep, "container.reachable") != true || get(rep, "container.ready") != true || get(rep, "container.error") != "" {
		t.Fatalf("container: %v", rep["container"])
	}
	if get(rep, "container.engine.version") != server.Version || get(rep, "container.engine.apiVersion") != server.APIVersion ||
		get(rep, "container.engine.os") != server.Os+"/"+server.Arch {
		t.Errorf("engine %v; docker version says %+v", get(rep, "container.engine"), server)
	}
	var runtimes map[string]any
	if err := json.Unmarshal([]byte(docker(t, "info", "--format", "{{json .Runtimes}}")), &runtimes); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range get(rep, "container.engine.runtimes").([]any) {
		names = append(names, r.(string))
	}
	for n := range runtimes {
		if !slices.Contains(names, n) {
			t.Errorf("runtime %s of docker info missing from %v", n, names)
		}
	}
	if def := docker(t, "info", "--format", "{{.DefaultRuntime}}"); get(rep, "container.engine.defaultRuntime") != def {
		t.Errorf("defaultRuntime %v, docker info says %s", get(rep, "container.engine.defaultRuntime"), def)
	}
	// This machine has gVisor: kernels get it without a warning.
	if get(rep, "container.runtime") != "runsc" || get(rep, "container.runtimeWarning") != "" {
		t.Errorf("runtime %v, warning %v", get(rep, "container.runtime"), get(rep, "container.runtimeWarning"))
	}
	if id := docker(t, "image", "inspect", "--format", "{{.Id}}", image); get(rep, "container.image.id") != id ||
		get(rep, "container.image.name") != image || get(rep, "container.image.present") != true {
		t.Errorf("image %v, docker says %s", get(rep, "container.image"), id)
	}

	rep, _ = doctorJSON(t, nil, "--image", image, "--runtime", "runc")
	if get(rep, "container.runtime") != "runc" || get(rep, "container.runtimeError") != "" {
		t.Errorf("--runtime runc: %v", rep["container"])
	}
}

// What is missing is said in the report, and its shape does not change.
func TestDoctorJSONMissing(t *testing.T) {
	want := keys(documented(t))
	rep, code := doctorJSON(t, nil, "--monty", "/no/such/monty")
	if code != 1 || rep["ok"] != false || get(rep, "monty.path") != "" || get(rep, "monty.testCell.ok") != false ||
		!strings.Contains(get(rep, "monty.error").(string), "/no/such/monty") {
		t.Errorf("no worker: exit %d, %v", code, rep["monty"])
	}
	if !slices.Equal(keys(rep), want) {
		t.Errorf("no worker: keys %v", keys(rep))
	}

	rep, code = doctorJSON(t, []string{"DOCKER_HOST=unix:///no/such/docker.sock"})
	if code != 0 || get(rep, "container.reachable") != false || get(rep, "container.ready") != false ||
		!strings.Contains(get(rep, "container.error").(string), "/no/such/docker.sock") {
		t.Errorf("no engine: exit %d, %v", code, rep["container"])
	}
	if rts, ok := get(rep, "container.engine.runtimes").([]any); !ok || len(rts) != 0 {
		t.Errorf("no engine: runtimes %v, want []", get(rep, "container.engine.runtimes"))
	}
	// The example's array elements have keys an empty array lacks.
	got := keys(rep)
	for _, k := range want {
		if !slices.Contains(got, k) && !strings.HasPrefix(k, "monty.candidates.") {
			t.Errorf("no engine: key %s missing", k)
		}
	}

	rep, _ = doctorJSON(t, nil, "--runtime", "kata")
	if !strings.Contains(get(rep, "container.runtimeError").(string), `unknown container runtime "kata"`) || get(rep, "container.ready") != false {
		t.Errorf("--runtime kata: %v", rep["container"])
	}
	if _, stderr, code := backyard(t, "doctor", "--json", "extra"); code != 2 || !strings.Contains(stderr, "unexpected argument") {
		t.Errorf("extra argument: %d %q", code, stderr)
	}
}

// The defaults in the report are the server's: its flags' defaults and
// the README's settings table.
func TestDoctorDefaults(t *testing.T) {
	d := serverDefaults()
	_, help, _ := backyard(t, "serve", "-h")
	for flag, want := range map[string]string{"backend": `"` + d.Backend + `"`, "timeout": strconv.Itoa(d.Timeout), "memory": strconv.Itoa(d.Memory)} {
		re := regexp.MustCompile(`(?m)^\s+-` + flag + ` .*\n.*\(default ([^)]*)\)`)
		m := re.FindStringSubmatch(help)
		if m == nil || m[1] != want {
			t.Errorf("serve --%s default %v, doctor says %s", flag, m, want)
		}
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for setting, want := range map[string]string{
		"backend": d.Backend, "timeout": strconv.Itoa(d.Timeout), "memory": strconv.Itoa(d.Memory),
		"recursionLimit": strconv.Itoa(d.RecursionLimit), "maxOutputBytes": strconv.Itoa(d.MaxOutputBytes),
		"container.image": d.Container.Image, "autoInstall": d.AutoInstall,
	} {
		row := "| `" + setting + "` | `" + want + "` |"
		if !strings.Contains(string(b), row) {
			t.Errorf("README's settings table lacks %s", row)
		}
	}
}
