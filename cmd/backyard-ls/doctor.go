package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/montykernel"
	"github.com/backyard-ls/backyard-ls/monty"
)

// doctorReport is what doctor found. `doctor --json` prints it as it is:
// the JSON names are an interface for editors and tools (README, "doctor
// --json"), so fields are added, never renamed, and every key is always
// present ("" or false when unknown).
type doctorReport struct {
	Version   string          `json:"version"` // of backyard-ls
	OK        bool            `json:"ok"`      // the default backend works: exit status 0
	Monty     doctorMonty     `json:"monty"`
	Container doctorContainer `json:"container"`
	Defaults  doctorDefaults  `json:"defaults"`
}

type doctorMonty struct {
	Path       string            `json:"path"` // "" when none was found
	Version    string            `json:"version"`
	Supported  string            `json:"supported"` // the pinned release
	Protocol   int               `json:"protocol"`  // the protocol backyard-ls speaks
	Candidates []doctorCandidate `json:"candidates"`
	TestCell   doctorTestCell    `json:"testCell"`
	Error      string            `json:"error"`
}

type doctorCandidate struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	Found  bool   `json:"found"`
}

// doctorTestCell is `1 + 1` run on a fresh worker, cold start included.
type doctorTestCell struct {
	OK         bool    `json:"ok"`
	DurationMs float64 `json:"durationMs"`
	Error      string  `json:"error"`
}

// doctorDefaults are the server's defaults of the settings that have one,
// under the settings' own names and units.
type doctorDefaults struct {
	Backend        string `json:"backend"`
	Timeout        int    `json:"timeout"` // seconds
	Memory         int    `json:"memory"`  // MiB
	RecursionLimit int    `json:"recursionLimit"`
	MaxOutputBytes int    `json:"maxOutputBytes"`
	AutoInstall    string `json:"autoInstall"`
	Container      struct {
		Image string `json:"image"`
	} `json:"container"`
}

// serverDefaults are the declared defaults (package contract).
func serverDefaults() doctorDefaults {
	s := contract.DefaultSettings()
	d := doctorDefaults{
		Backend: string(s.Backend), Timeout: int(s.Timeout), Memory: int(s.Memory), RecursionLimit: s.RecursionLimit,
		MaxOutputBytes: s.MaxOutputBytes, AutoInstall: string(s.Install.AutoInstall),
	}
	d.Container.Image = s.Container.Image
	return d
}

// runDoctor reports what backyard-ls found and what is missing. Exit status
// 1 when the Monty worker (needed for the default backend) is unusable.
func runDoctor(args []string) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object (for editors and tools) instead of the report")
	montyPath := fs.String("monty", "", "path of the Monty worker")
	image := fs.String("image", "", "container image to check (default "+container.DefaultImage+")")
	runtime := fs.String("runtime", "", "container runtime to check: runc or runsc (default: runsc when the engine has it)")
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "backyard-ls doctor: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	rep := doctorReport{Version: version, Monty: checkMonty(*montyPath), Defaults: serverDefaults()}
	rep.OK = rep.Monty.Error == "" && rep.Monty.TestCell.OK
	probe := probeContainer(*image, *runtime)
	rep.Container = containerJSON(probe)
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintln(os.Stderr, "backyard-ls doctor:", err)
			return 2
		}
	} else {
		printMonty(rep.Monty)
		fmt.Println()
		fmt.Println("Container engine (container backend)")
		printContainer(probe)
	}
	if !rep.OK {
		return 1
	}
	return 0
}

// checkMonty finds the worker and runs a test cell on it.
func checkMonty(explicit string) doctorMonty {
	m := doctorMonty{Supported: monty.RuntimeVersion, Protocol: monty.ProtocolVersion, Candidates: []doctorCandidate{}}
	for _, c := range monty.Lookup(explicit) {
		m.Candidates = append(m.Candidates, doctorCandidate{c.Source, c.Path, c.Found})
	}
	path, err := monty.Find(explicit)
	if err != nil {
		m.Error = err.Error()
		m.TestCell.Error = "no worker"
		return m
	}
	m.Path = path
	if v, err := monty.Version(path); err != nil {
		m.Error = err.Error()
	} else {
		m.Version = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	k, err := montykernel.New(montykernel.Options{Binary: path})
	if err != nil {
		m.TestCell.Error = err.Error()
		return m
	}
	defer k.Close()
	start := time.Now()
	r, err := k.Execute(ctx, kernel.Request{Code: "1 + 1"})
	m.TestCell.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	switch {
	case err != nil:
		m.TestCell.Error = err.Error()
	case r.Error != nil:
		m.TestCell.Error = r.Error.EName + ": " + r.Error.EValue
	case r.Value == nil || r.Value.Text != "2":
		m.TestCell.Error = fmt.Sprintf("1 + 1 gave %+v", r.Value)
	default:
		m.TestCell.OK = true
	}
	return m
}

func printMonty(m doctorMonty) {
	fmt.Printf("backyard-ls %s\n\n", version)
	fmt.Println("Monty worker (default backend)")
	for _, c := range m.Candidates {
		mark := "  -"
		if c.Found {
			mark = "  ✓"
		}
		fmt.Printf("%s %-20s %s\n", mark, c.Source, c.Path)
	}
	if m.Path == "" {
		fmt.Printf("  ✗ %s\n    %s\n", m.Error, strings.ReplaceAll(monty.InstallHint(), "\n", "\n    "))
		return
	}
	fmt.Printf("  using %s\n  version %s (supported: %s, protocol %d)\n", m.Path, m.Version, m.Supported, m.Protocol)
	switch {
	case m.Error != "":
		fmt.Printf("  ! %s\n", m.Error)
	case m.Version != monty.RuntimeVersion:
		fmt.Printf("  ! not the pinned release; it works if it serves protocol %d\n", monty.ProtocolVersion)
	}
	if m.TestCell.OK {
		fmt.Printf("  ✓ test cell 1 + 1 = 2 (cold start to result %.1f ms)\n", m.TestCell.DurationMs)
	} else {
		fmt.Printf("  ✗ test cell failed: %s\n", m.TestCell.Error)
	}
}
