package montykernel

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/monty"
	"github.com/backyard-ls/backyard-ls/pysrc"
	"github.com/backyard-ls/backyard-ls/pysrc/ipysyntax"
)

// magicPrelude is the Python side of the magics a Monty cell hosts
// (ipysyntax.Result.Hosted): the host answers, the cell prints as
// IPython's magic would.
const magicPrelude = `def ` + ipysyntax.LineMagicFunc + `(name, args):
    r = ` + ipysyntax.HostMagic + `(name, args)
    if r[0]:
        print(r[0], end='')
    if len(r) > 2:  # dictPairs
        return {k: {n: c for n, c in v} for k, v in r[1]}
    return r[1]
def ` + ipysyntax.TocFunc + `(t, value, silent):
    print(` + ipysyntax.HostTiming + `(), end='')
    if silent:
        return None
    return value
def ` + ipysyntax.PprintFunc + `():
    __backyard_pprint_on__[0] = not __backyard_pprint_on__[0]
    print('Pretty printing has been turned', 'ON' if __backyard_pprint_on__[0] else 'OFF')
def ` + ipysyntax.WhoFunc + `(args, getters, long):
    types = args.split()
    rows = []
    for n in sorted(getters):
        try:
            v = getters[n][0]()
        except NameError:
            continue
        t = type(v).__name__
        if getters[n][1] and t in ('builtin_function_or_method', 'type'):
            continue
        if types and t not in types:
            continue
        rows.append((n, t, v))
    if not rows:
        if types:
            print('No variables match your requested type.')
        else:
            print('Interactive namespace is empty.')
        return None
    if not long:
        s = ''
        for i in range(len(rows)):
            s += rows[i][0] + '\t '
            if i % 9 == 8:
                s += '\n'
        print(s)
        return None
    vw = max(max([len(r[0]) for r in rows]), 8) + 3
    tw = max(max([len(r[1]) for r in rows]), 4) + 3
    print('Variable'.ljust(vw) + 'Type'.ljust(tw) + ' Data/Info\n' + '-' * (vw + tw + 10))
    for r in rows:
        if r[1] in ('dict', 'list', 'tuple'):
            info = 'n=' + str(len(r[2]))
        else:
            info = str(r[2]).replace('\n', '\\n')
            if len(info) >= 50:
                info = info[:25] + '<...>' + info[-25:]
        print(r[0].ljust(vw) + r[1].ljust(tw) + ' ' + info)
    return None
`

// usageMark starts the message of a UsageError a host function raises (a
// RuntimeError in the worker, which has no such type): the result shows it
// as IPython does (usageResult).
const usageMark = "[backyard usage] "

func usageError(msg string) error {
	return &kernel.HostError{Type: "UsageError", Message: usageMark + msg}
}

// usageResult shows a UsageError a hosted magic raised as IPython shows
// one: its name and message, no traceback.
func usageResult(e *contract.ExecutionError) {
	if e == nil || e.EName != "RuntimeError" {
		return
	}
	if msg, ok := strings.CutPrefix(e.EValue, "UsageError: "+usageMark); ok {
		e.EName, e.EValue, e.Traceback = "UsageError", msg, []contract.Frame{}
	}
}

// clocks are where %time's clocks started.
type clocks struct {
	wall      time.Time
	user, sys time.Duration
	cpu       bool
}

// magicHost answers a hosted cell's magics on worker w.
type magicHost struct {
	k       *Kernel
	w       *monty.Worker
	started []clocks
}

// funcs are its host functions, added to fns.
func (m *magicHost) funcs(fns map[string]kernel.HostFunc) map[string]kernel.HostFunc {
	out := maps.Clone(fns)
	if out == nil {
		out = map[string]kernel.HostFunc{}
	}
	out[ipysyntax.HostMagic] = func(_ context.Context, args []any, _ map[string]any) (any, error) {
		if len(args) != 2 {
			return nil, &kernel.HostError{Type: "TypeError", Message: ipysyntax.HostMagic + "() takes 2 arguments"}
		}
		name, _ := args[0].(string)
		line, _ := args[1].(string)
		stdout, v, err := m.k.lineMagic(m.w, name, line)
		if err != nil {
			return nil, err
		}
		if p, ok := v.(dictPairs); ok {
			return []any{stdout, []any(p), true}, nil
		}
		return []any{stdout, v}, nil
	}
	out[ipysyntax.HostTic] = func(context.Context, []any, map[string]any) (any, error) {
		c := clocks{wall: time.Now()}
		c.user, c.sys, c.cpu = m.w.CPUTimes()
		m.started = append(m.started, c)
		return nil, nil
	}
	out[ipysyntax.HostTiming] = func(context.Context, []any, map[string]any) (any, error) {
		return m.stop(), nil
	}
	return out
}

// stop stops the last clocks started and is %time's report of them.
func (m *magicHost) stop() string {
	if len(m.started) == 0 {
		return ""
	}
	c := m.started[len(m.started)-1]
	m.started = m.started[:len(m.started)-1]
	wall := time.Since(c.wall)
	user, sys := wall, time.Duration(0) // no CPU clock: the worker is busy while it runs
	if u, s, ok := m.w.CPUTimes(); ok && c.cpu {
		user, sys = max(u-c.user, 0), max(s-c.sys, 0)
	}
	return timeReport(user, sys, wall)
}

// ended prints the reports of clocks an exception left running: IPython's
// %time prints its report before it raises again.
func (m *magicHost) ended(out interface{ Write(kernel.Stream, string) }) func(bool) {
	return func(raised bool) {
		for raised && len(m.started) > 0 {
			out.Write(kernel.Stdout, m.stop())
		}
	}
}

// timeReport is IPython's %time report.
func timeReport(user, sys, wall time.Duration) string {
	if runtime.GOOS == "windows" {
		return "CPU times: total: " + FormatTime((user + sys).Seconds()) + "\nWall time: " + FormatTime(wall.Seconds()) + "\n"
	}
	return fmt.Sprintf("CPU times: user %s, sys: %s, total: %s\nWall time: %s\n",
		FormatTime(user.Seconds()), FormatTime(sys.Seconds()), FormatTime((user + sys).Seconds()), FormatTime(wall.Seconds()))
}

// FormatTime is IPython's _format_time of a span in seconds: three
// significant digits in s, ms, μs or ns, or days to seconds from a minute
// on.
func FormatTime(t float64) string {
	if t >= 60 {
		var parts []string
		left := t
		for _, p := range []struct {
			suffix string
			length float64
		}{{"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}} {
			v := int(left / p.length)
			if v > 0 {
				left = math.Mod(left, p.length)
				parts = append(parts, fmt.Sprintf("%d%s", v, p.suffix))
			}
			if left < 1 {
				break
			}
		}
		return strings.Join(parts, " ")
	}
	units := []string{"s", "ms", "μs", "ns"}
	scaling := []float64{1, 1e3, 1e6, 1e9}
	order := 3
	if t > 0 {
		e := int(math.Floor(math.Log10(t)))
		order = min(-floorDiv(e, 3), 3)
	}
	return fmt.Sprintf("%.3g %s", t*scaling[order], units[order])
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// lineMagic answers a line magic the host runs (hostedByCall in
// ipysyntax, or one IPython has not): what it prints and its value.
func (k *Kernel) lineMagic(w *monty.Worker, name, line string) (string, any, error) {
	switch {
	case !k.HasLineMagic(name):
		return "", nil, usageError(ipysyntax.UnknownMagic(name))
	case name == "pwd":
		return "", cmp.Or(k.opts.Dir, "/"), nil
	case name == "lsmagic":
		json, err := container.LsMagicJSON(line)
		switch {
		case err != nil:
			return "", nil, usageError(err.Error())
		case json:
			return "", lsmagicDicts(k.loadedExtensions()), nil
		}
		return "", container.LsMagic(k.loadedExtensions()...), nil
	case name == "precision":
		return "", "%r", nil
	case name == "env":
		return k.env(w, line)
	case name == "set_env":
		return k.setEnv(w, line)
	case name == "autoreload":
		return "", nil, nil // the extension is loaded (HasLineMagic): accepted, as the container's shell accepts it
	case name == "load_ext" || name == "reload_ext" || name == "unload_ext":
		return k.extension(name, strings.TrimSpace(line)), nil, nil
	}
	return "", nil, usageError(name + " is not answered on Monty")
}

// HasLineMagic reports whether IPython's shell has the line magic name in
// this kernel's state: the container's shell's own, and those of the
// extensions loaded since.
func (k *Kernel) HasLineMagic(name string) bool {
	if container.HasLineMagic(name) {
		return true
	}
	for _, e := range k.loadedExtensions() {
		for _, m := range container.ExtensionMagics(e) {
			if m.Kind == "line" && m.Name == name {
				return true
			}
		}
	}
	return false
}

// loadedExtensions are the extensions %load_ext loaded, sorted.
func (k *Kernel) loadedExtensions() []string {
	k.Mu.Lock()
	defer k.Mu.Unlock()
	return slices.Sorted(maps.Keys(k.extensions))
}

// extension answers %load_ext, %reload_ext and %unload_ext of name
// (autoreload, which registers magics and has no unload function): what
// IPython's prints.
func (k *Kernel) extension(magic, name string) string {
	k.Mu.Lock()
	defer k.Mu.Unlock()
	switch {
	case magic == "unload_ext" && !k.extensions[name]:
		return "The " + name + " extension is not loaded.\n"
	case magic == "unload_ext":
		return "The " + name + " extension doesn't define how to unload it.\n"
	case magic == "load_ext" && k.extensions[name]:
		return "The " + name + " extension is already loaded. To reload it, use:\n  %reload_ext " + name + "\n"
	}
	if k.extensions == nil {
		k.extensions = map[string]bool{}
	}
	k.extensions[name] = true
	return ""
}

// dictPairs is a dict of dicts as pairs, in its order: the wire sorts a
// dict's keys, so magicPrelude makes the dicts.
type dictPairs []any

// lsmagicDicts is %lsmagic --json's value: each kind's magics and their
// classes, those the container's shell has with the extensions named
// loaded, as it answers.
func lsmagicDicts(extensions []string) dictPairs {
	has := container.ShellMagics(extensions...)
	kinds := map[string][]any{}
	for _, m := range container.MagicClasses() {
		if has[m.Kind][m.Name] {
			kinds[m.Kind] = append(kinds[m.Kind], []any{m.Name, m.Class})
		}
	}
	return dictPairs{[]any{"line", kinds["line"]}, []any{"cell", kinds["cell"]}}
}

// env is IPython's %env: list (secrets hidden), get or set.
func (k *Kernel) env(w *monty.Worker, p string) (string, any, error) {
	if strings.TrimSpace(p) != "" {
		split := " "
		if strings.Contains(p, "=") {
			split = "="
		}
		if len(strings.Split(p, split)) == 1 {
			key := strings.TrimSpace(p)
			if v, ok := w.Environ()[key]; ok {
				return "", v, nil
			}
			return "", nil, usageError("Environment does not have key: " + key)
		}
		return k.setEnv(w, p)
	}
	env := map[string]any{}
	for key, v := range w.Environ() {
		l := strings.ToLower(key)
		if strings.Contains(l, "key") || strings.Contains(l, "token") || strings.Contains(l, "secret") {
			v = "<hidden>"
		}
		env[key] = v
	}
	return "", env, nil
}

// setEnv is IPython's %set_env: the variable is set for this session and
// the sessions that replace it.
func (k *Kernel) setEnv(w *monty.Worker, p string) (string, any, error) {
	split := " "
	if strings.Contains(p, "=") {
		split = "="
	}
	bits := strings.SplitN(p, split, 2)
	if strings.TrimSpace(p) == "" || len(bits) < 2 {
		return "", nil, usageError("usage is 'set_env var=val'")
	}
	key, val := strings.TrimSpace(bits[0]), strings.TrimSpace(bits[1])
	if strings.ContainsAny(key, " \t\n\r\f\v") {
		return "", nil, usageError("refusing to set env var with whitespace: '" + val + "'")
	}
	switch {
	case strings.ContainsRune(key+val, 0):
		return "", nil, &kernel.HostError{Type: "ValueError", Message: "embedded null byte"}
	case key == "":
		return "", nil, &kernel.HostError{Type: "OSError", Message: "[Errno 22] Invalid argument"} // os.environ[''] = val
	}
	w.Setenv(key, val)
	if k.cp.keeper != nil {
		// The keeper becomes the kernel's worker after an interrupt, and a
		// replayed %env gets its recorded answer without setting anything.
		k.cp.keeper.Setenv(key, val)
	}
	k.Mu.Lock()
	if k.envSet == nil {
		k.envSet = map[string]string{}
	}
	k.envSet[key] = val
	k.Mu.Unlock()
	return "env: " + key + "=" + val + "\n", nil, nil
}

// prettyDict is IPython's text/plain of a dict of strings: its repr when
// that fits on a line of 79 characters, else one item a line.
func prettyDict(m map[string]any) string {
	keys := slices.Sorted(maps.Keys(m))
	items := make([]string, len(keys))
	for i, key := range keys {
		s, _ := m[key].(string)
		items[i] = ipysyntax.PyRepr(key) + ": " + ipysyntax.PyRepr(s)
	}
	if line := "{" + strings.Join(items, ", ") + "}"; len([]rune(line)) <= 79 {
		return line
	}
	return "{" + strings.Join(items, ",\n ") + "}"
}

// magicNames are the names %who and %whos may list in a cell (code, as
// plain Python): those of cells that ran and the cell's own.
func (k *Kernel) magicNames(code string) []string {
	names := slices.Collect(maps.Keys(k.names))
	for _, n := range pysrc.Names(code) {
		if !strings.HasPrefix(n, ipysyntax.HostedPrefix) {
			names = append(names, n)
		}
	}
	return names
}
