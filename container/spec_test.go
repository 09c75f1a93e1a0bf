package container

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/files"
	"github.com/backyard-ls/backyard-ls/internal/proc"
)

func TestSpecIsHardenedByDefault(t *testing.T) {
	cfg := Config{}.WithDefaults()
	plan, err := planFiles(cfg, RuntimeRunc)
	if err != nil {
		t.Fatal(err)
	}
	sp := buildSpec(cfg, "", ownerLabels(), plan)
	c, h := sp.config, sp.host
	if c.Image != DefaultImage || c.User != "65534:65534" || c.WorkingDir != "/tmp" || !c.NetworkDisabled ||
		!c.OpenStdin || !c.StdinOnce || c.Tty || c.Cmd[0] != "python3" || c.Cmd[1] != "-c" || strings.Join(c.Cmd[3:], "") != driverSource {
		t.Fatalf("%+v", c)
	}
	env := strings.Join(c.Env, " ")
	for _, want := range []string{"PATH=/usr/local/sbin:", "HOME=/tmp", "MPLBACKEND=Agg", "BACKYARD_RECURSION_LIMIT=1000"} {
		if !strings.Contains(env, want) {
			t.Errorf("env lacks %s: %s", want, env)
		}
	}
	if h.NetworkMode != "none" || !h.ReadonlyRootfs || len(h.CapDrop) != 1 || h.CapDrop[0] != "ALL" ||
		len(h.SecurityOpt) != 1 || h.SecurityOpt[0] != "no-new-privileges" || len(h.Mounts) != 0 || h.Runtime != "" {
		t.Fatalf("%+v", h)
	}
	if h.Memory != 256<<20 || h.MemorySwap != h.Memory || h.NanoCPUs != 1e9 || h.PidsLimit == nil || *h.PidsLimit != 256 {
		t.Fatalf("%+v", h.Resources)
	}
	if h.Tmpfs["/tmp"] != "rw,nosuid,nodev,size=67108864,mode=1777" {
		t.Fatalf("%q", h.Tmpfs)
	}
	if c.Labels[LabelKernel] != "1" || c.Labels[LabelInstance] != InstanceID() || c.Labels[LabelPID] == "" {
		t.Fatalf("%v", c.Labels)
	}
}

func TestSpecSettings(t *testing.T) {
	ws := t.TempDir()
	cfg := Config{ContainerSettings: contract.ContainerSettings{Image: "img", Network: contract.NetworkBridge, MountWorkspace: true}, Workspace: ws, CPUs: 0.5,
		PidsLimit: 300, MemoryBytes: 1 << 30, User: "1000:1000", Python: "/usr/bin/python3"}.WithDefaults()
	plan, err := planFiles(cfg, RuntimeRunc)
	if err != nil {
		t.Fatal(err)
	}
	sp := buildSpec(cfg, "runsc", nil, plan)
	c, h := sp.config, sp.host
	// The workspace is an in-memory overlay at its own path, filled after
	// the start.
	if len(h.Mounts) != 0 || h.Tmpfs[ws] != "rw,nosuid,nodev,size=1073741824,mode=1777" || c.WorkingDir != "/tmp" || !plan.copied {
		t.Fatalf("%+v %q %s", h.Mounts, h.Tmpfs, c.WorkingDir)
	}
	if h.NetworkMode == "none" || c.NetworkDisabled || h.Runtime != "runsc" || h.NanoCPUs != 5e8 || *h.PidsLimit != 300 ||
		h.Memory != 1<<30 || c.User != "1000:1000" || c.Cmd[0] != "/usr/bin/python3" {
		t.Fatalf("%+v %+v", c, h)
	}
	// Mounting is off unless asked for.
	cfg.MountWorkspace = false
	plan, _ = planFiles(cfg, RuntimeRunc)
	if sp := buildSpec(cfg, "", nil, plan); len(sp.host.Mounts) != 0 || len(sp.host.Tmpfs) != 1 {
		t.Fatalf("%+v %q", sp.host.Mounts, sp.host.Tmpfs)
	}
}

// workspaceOf makes a workspace holding files (10 bytes each).
func workspaceOf(t *testing.T, files ...string) string {
	t.Helper()
	ws := t.TempDir()
	for _, p := range files {
		full := filepath.Join(ws, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte("0123456789"), 0o644)
	}
	return ws
}

// copied are the paths a plan copies, below ws.
func copied(plan *filePlan, ws string) string {
	var put []string
	for _, m := range plan.puts {
		put = append(put, strings.TrimPrefix(m.Path, ws))
	}
	return strings.Join(put, " ")
}

func TestSpecWorkspaceModes(t *testing.T) {
	ws := workspaceOf(t, "data/a.csv", ".env", "sub/.git/HEAD")
	rules := files.NewRules([]string{ws}, []string{".env", ".git"})
	cfg := Config{ContainerSettings: contract.ContainerSettings{MountWorkspace: true}, Rules: rules}.WithDefaults()

	// Copied: every visible file, nothing hidden.
	plan, err := planFiles(cfg, RuntimeRunc)
	if err != nil {
		t.Fatal(err)
	}
	if want := "/data /data/a.csv /sub"; copied(plan, ws) != want || plan.bytes != 10 || plan.note != "" {
		t.Fatalf("put %v, %d bytes, want %s", copied(plan, ws), plan.bytes, want)
	}

	// Too large to copy: read-only, hidden names masked, and a note.
	cfg.CopyBytes = 5
	plan, _ = planFiles(cfg, RuntimeRunc)
	sp := buildSpec(cfg, "", nil, plan)
	var got []string
	for _, m := range sp.host.Mounts {
		got = append(got, fmt.Sprintf("%s %s %s %v", m.Type, m.Source, strings.TrimPrefix(m.Target, ws), m.ReadOnly))
	}
	want := []string{"bind " + ws + "  true", "bind " + os.DevNull + " /.env true", "tmpfs  /sub/.git true"}
	if strings.Join(got, "|") != strings.Join(want, "|") || !strings.Contains(plan.note, "read-only") {
		t.Fatalf("mounts %q, note %q", got, plan.note)
	}

	// files.write workspace: read-write, as the server's user.
	cfg.CopyBytes, cfg.Write = 0, contract.FilesWorkspace
	plan, _ = planFiles(cfg, RuntimeRunc)
	sp = buildSpec(cfg, "", nil, plan)
	if len(sp.host.Mounts) != 3 || sp.host.Mounts[0].ReadOnly || !sp.host.Mounts[1].ReadOnly || sp.config.User != hostUser() {
		t.Fatalf("%+v %s", sp.host.Mounts, sp.config.User)
	}
}

func TestChooseRuntime(t *testing.T) {
	docker := EngineInfo{Host: "unix:///x", Runtimes: []string{"io.containerd.runc.v2", "runc", "runsc"}, DefaultRuntime: "runc"}
	plain := EngineInfo{Host: "unix:///x", Runtimes: []string{"runc"}, DefaultRuntime: "runc"}
	podman := EngineInfo{Host: "unix:///p", Runtimes: []string{"crun", "krun"}, DefaultRuntime: "crun"}
	cases := []struct {
		info           EngineInfo
		forced         string
		name, engine   string
		warn, wantErrs bool
	}{
		{docker, "", "runsc", "runsc", false, false},
		{docker, "runc", "runc", "runc", false, false},
		{docker, "runsc", "runsc", "runsc", false, false},
		{plain, "", "runc", "", true, false},
		{plain, "runc", "runc", "runc", false, false},
		{plain, "runsc", "", "", false, true},
		{podman, "", "crun", "", true, false},
		{podman, "runc", "", "", false, true},
		{docker, "kata", "", "", false, true},
	}
	for _, c := range cases {
		rt, err := chooseRuntime(c.info, c.forced)
		if (err != nil) != c.wantErrs || rt.Name != c.name || rt.engine != c.engine || (rt.Warning != "") != c.warn {
			t.Errorf("%v %q: %+v %v", c.info.Runtimes, c.forced, rt, err)
		}
	}
	if _, err := chooseRuntime(plain, "runsc"); err == nil || !strings.Contains(err.Error(), "docker-setup.sh") {
		t.Errorf("%v", err)
	}
}

func TestPullProgress(t *testing.T) {
	stream := `{"status":"Pulling from library/python","id":"3.13-slim"}
{"status":"Pulling fs layer","progressDetail":{},"id":"aaa"}
{"status":"Pulling fs layer","progressDetail":{},"id":"bbb"}
{"status":"Downloading","progressDetail":{"current":50,"total":100},"id":"aaa"}
{"status":"Download complete","progressDetail":{},"id":"aaa"}
{"status":"Extracting","progressDetail":{"current":100,"total":100},"id":"aaa"}
{"status":"Pull complete","progressDetail":{},"id":"aaa"}
{"status":"Already exists","progressDetail":{},"id":"bbb"}
{"status":"Digest: sha256:abc"}
`
	var pcts []int
	err := followPull(strings.NewReader(stream), func(p int, msg string) { pcts = append(pcts, p) })
	if err != nil {
		t.Fatal(err)
	}
	if pcts[0] != -1 || pcts[len(pcts)-1] != 100 {
		t.Fatalf("%v", pcts)
	}
	for i := 1; i < len(pcts); i++ {
		if pcts[i] < pcts[i-1] {
			t.Fatalf("progress went back: %v", pcts)
		}
	}
	err = followPull(strings.NewReader(`{"status":"x"}
{"errorDetail":{"message":"manifest unknown"},"error":"manifest unknown"}
`), func(int, string) {})
	if err == nil || err.Error() != "manifest unknown" {
		t.Fatalf("%v", err)
	}
}

func TestExitDescribe(t *testing.T) {
	cases := []struct {
		x    ExitInfo
		want string
	}{
		{ExitInfo{EngineLost: true, EngineErr: errors.New("EOF"), host: "unix:///s"}, "lost the connection to the container engine at unix:///s: EOF; start dockerd or set DOCKER_HOST"},
		{ExitInfo{Code: 137, OOMKilled: true, MemoryBytes: 128 << 20}, "the kernel ran out of memory (limit 128 MiB)"},
		{ExitInfo{Code: 137, Killed: true}, "the kernel was stopped"},
		// A SIGKILL the engine does not blame on memory is not called out of memory.
		{ExitInfo{Code: 137, MemoryBytes: 128 << 20}, "the kernel was killed by signal SIGKILL"},
		{ExitInfo{Code: 143}, "the kernel was killed by signal SIGTERM"},
		{ExitInfo{Code: 3}, "the kernel process exited with code 3 (os._exit() or a fatal error of the interpreter)"},
		{ExitInfo{Code: 70, Stderr: "backyard-ls driver failed:\nboom\n"}, "the kernel process exited with code 70 (os._exit() or a fatal error of the interpreter): backyard-ls driver failed:\nboom"},
	}
	for _, c := range cases {
		if got := c.x.Describe(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestOwnerGone(t *testing.T) {
	me := ownerLabels()
	other := func(pid, start string) map[string]string {
		l := ownerLabels()
		l[LabelInstance], l[LabelPID], l[LabelPIDStart] = "other", pid, start
		return l
	}
	if ownerGone(owner[LabelHost], me) {
		t.Fatal("this process is not gone")
	}
	if ownerGone(owner[LabelHost], other("1", proc.StartTime(1))) {
		t.Fatal("pid 1 is alive")
	}
	if !ownerGone(owner[LabelHost], other("1", "12345")) {
		t.Fatal("pid 1 with another start time is a reused PID")
	}
	dead := other("999999999", "")
	if proc.Alive(999999999) || !ownerGone(owner[LabelHost], dead) {
		t.Fatal("a dead PID is gone")
	}
	dead[LabelHost] = "another-machine"
	if ownerGone(owner[LabelHost], dead) {
		t.Fatal("another machine's container is never reaped")
	}
}

// A hide pattern of several parts (.config/gh) keeps its folder out of
// the container's copy of the workspace, and masks it in a read-only
// mount, while the rest of .config is seen.
func TestSpecHidesNamesOfSeveralParts(t *testing.T) {
	ws := workspaceOf(t, ".config/gh/hosts.yml", ".config/ok.txt", "a_history")
	cfg := Config{ContainerSettings: contract.ContainerSettings{MountWorkspace: true}, Rules: files.NewRules([]string{ws}, contract.DefaultSettings().Files.Hide)}.WithDefaults()
	plan, err := planFiles(cfg, RuntimeRunc)
	if err != nil {
		t.Fatal(err)
	}
	if want := "/.config /.config/ok.txt"; copied(plan, ws) != want {
		t.Fatalf("put %v, want %s", copied(plan, ws), want)
	}
	cfg.CopyBytes = 5
	plan, _ = planFiles(cfg, RuntimeRunc)
	var masked []string
	for _, m := range plan.masks {
		masked = append(masked, strings.TrimPrefix(m.Target, ws))
	}
	if want := "/.config/gh /a_history"; strings.Join(masked, " ") != want {
		t.Fatalf("masked %v, want %s", masked, want)
	}
}
