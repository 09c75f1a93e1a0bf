// Command checkwheel checks that backyard-ls wheels are well-formed for
// the platform their name says, without installing them: the Python package
// backyard_ls (typed: py.typed) and nothing else beside the binary, the tags against
// packaging/platforms.txt, the metadata against cmd/backyard-ls/VERSION and
// the worker pin (monty.RuntimeVersion), RECORD's hashes, the script and
// its executable bit, and the binary itself: its header (ELF, Mach-O or PE
// machine, the oldest macOS it runs on) and the GOOS/GOARCH Go recorded in
// it. Run from the repository root:
//
//	go run ./packaging/checkwheel dist/backyard_ls-*.whl
//
// It prints "ok" or "FAIL" per wheel and the line "N passed, N failed".
package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/base64"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/backyard-ls/backyard-ls/monty"
)

const mainPath = "github.com/backyard-ls/backyard-ls/cmd/backyard-ls"

// pkgDir is the Python package the wheel holds beside the binary.
const pkgDir = "backyard_ls/"

type platform struct{ goos, goarch, tag string }

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: checkwheel WHEEL...")
		os.Exit(2)
	}
	platforms, err := readPlatforms("packaging/platforms.txt")
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkwheel:", err)
		os.Exit(2)
	}
	v, err := os.ReadFile("cmd/backyard-ls/VERSION")
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkwheel:", err)
		os.Exit(2)
	}
	version := strings.TrimSpace(string(v))
	passed, failed := 0, 0
	for _, w := range os.Args[1:] {
		what, problems := check(w, version, platforms)
		if len(problems) == 0 {
			passed++
			fmt.Printf("ok %s: %s\n", filepath.Base(w), what)
			continue
		}
		failed++
		fmt.Printf("FAIL %s\n", filepath.Base(w))
		for _, p := range problems {
			fmt.Printf("     %s\n", p)
		}
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

func readPlatforms(path string) (map[string]platform, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]platform{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		goos, goarch, _ := strings.Cut(fields[0], "/")
		out[fields[1]] = platform{goos, goarch, fields[1]}
	}
	return out, sc.Err()
}

var wheelName = regexp.MustCompile(`^backyard_ls-([^-]+)-py3-none-([^-]+)\.whl$`)

func check(path, version string, platforms map[string]platform) (string, []string) {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	m := wheelName.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return "", []string{"the name is not backyard_ls-VERSION-py3-none-PLATFORM.whl"}
	}
	if m[1] != version {
		bad("version %s in the name, VERSION says %s", m[1], version)
	}
	p, ok := platforms[m[2]]
	if !ok {
		return "", append(problems, fmt.Sprintf("platform tag %s is not in packaging/platforms.txt", m[2]))
	}
	z, err := zip.OpenReader(path)
	if err != nil {
		return "", append(problems, err.Error())
	}
	defer z.Close()

	exe := "backyard-ls"
	if p.goos == "windows" {
		exe += ".exe"
	}
	dataDir, infoDir := "backyard_ls-"+m[1]+".data/", "backyard_ls-"+m[1]+".dist-info/"
	script := dataDir + "scripts/" + exe
	files := map[string][]byte{}
	var scriptMode os.FileMode
	for _, f := range z.File {
		b, err := read(f)
		if err != nil {
			bad("%s: %v", f.Name, err)
			continue
		}
		files[f.Name] = b
		if f.Name == script {
			scriptMode = f.Mode()
		}
	}
	want := []string{script, infoDir + "METADATA", infoDir + "WHEEL", infoDir + "RECORD", pkgDir + "__init__.py", pkgDir + "py.typed", pkgDir + "_protocol.py"}
	for _, n := range want {
		if files[n] == nil {
			bad("no %s", n)
		}
	}
	var extra []string
	for n := range files {
		if !slices.Contains(want, n) && !(strings.HasPrefix(n, pkgDir) && strings.HasSuffix(n, ".py")) {
			extra = append(extra, n)
		}
	}
	if len(extra) > 0 {
		bad("files %v besides %v and the package's modules", extra, want)
	}

	wheel := headers(files[infoDir+"WHEEL"])
	if got := wheel["Tag"]; len(got) != 1 || got[0] != "py3-none-"+p.tag {
		bad("WHEEL Tag %v, want py3-none-%s", got, p.tag)
	}
	if got := wheel["Root-Is-Purelib"]; len(got) != 1 || got[0] != "false" {
		bad("WHEEL Root-Is-Purelib %v, want false (a platform wheel)", got)
	}
	meta := headers(files[infoDir+"METADATA"])
	pin := "pydantic-monty-runtime==" + monty.RuntimeVersion
	for key, val := range map[string]string{"Name": "backyard-ls", "Version": version} {
		if got := meta[key]; len(got) != 1 || got[0] != val {
			bad("METADATA %s %v, want %s", key, got, val)
		}
	}
	// Installed without extras, the wheel needs the worker alone; extras
	// (ray) bring their own.
	var always []string
	for _, req := range meta["Requires-Dist"] {
		if !strings.Contains(req, "extra ==") {
			always = append(always, req)
		}
	}
	if len(always) != 1 || always[0] != pin {
		bad("METADATA Requires-Dist without an extra %v, want %s", always, pin)
	}
	checkRecord(files, infoDir+"RECORD", bad)
	if p.goos != "windows" && scriptMode&0o111 != 0o111 {
		bad("%s has mode %v: not executable once installed", script, scriptMode)
	}

	bin := files[script]
	if bin == nil {
		return "", problems
	}
	header := checkHeader(bin, p, bad)
	info, err := buildinfo.Read(bytes.NewReader(bin))
	if err != nil {
		bad("no Go build info: %v", err)
		return "", problems
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if settings["GOOS"] != p.goos || settings["GOARCH"] != p.goarch {
		bad("built for %s/%s, want %s/%s", settings["GOOS"], settings["GOARCH"], p.goos, p.goarch)
	}
	if settings["CGO_ENABLED"] != "0" {
		bad("CGO_ENABLED=%s: the binary would need the build machine's C library", settings["CGO_ENABLED"])
	}
	if info.Path != mainPath {
		bad("main package %s, want %s", info.Path, mainPath)
	}
	return fmt.Sprintf("%s, %s %s/%s, %d KiB, requires %s", header, info.GoVersion, p.goos, p.goarch, len(bin)>>10, pin), problems
}

func read(f *zip.File) ([]byte, error) {
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// headers parses the email-style header block of METADATA and WHEEL.
func headers(b []byte) map[string][]string {
	out := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			break // the description follows
		}
		k, v, ok := strings.Cut(line, ": ")
		if ok {
			out[k] = append(out[k], strings.TrimSpace(v))
		}
	}
	return out
}

// checkRecord checks that RECORD lists every other file with its sha256
// and size, as installers verify them.
func checkRecord(files map[string][]byte, name string, bad func(string, ...any)) {
	rows, err := csv.NewReader(bytes.NewReader(files[name])).ReadAll()
	if err != nil {
		bad("RECORD: %v", err)
		return
	}
	listed := map[string]bool{}
	for _, r := range rows {
		if len(r) != 3 {
			bad("RECORD row %v", r)
			continue
		}
		listed[r[0]] = true
		if r[0] == name {
			continue
		}
		b, ok := files[r[0]]
		if !ok {
			bad("RECORD lists %s, which is not in the wheel", r[0])
			continue
		}
		sum := sha256.Sum256(b)
		if r[1] != "sha256="+base64.RawURLEncoding.EncodeToString(sum[:]) {
			bad("RECORD hash of %s does not match", r[0])
		}
		if r[2] != strconv.Itoa(len(b)) {
			bad("RECORD size of %s is %s, the file has %d bytes", r[0], r[2], len(b))
		}
	}
	for n := range files {
		if !listed[n] {
			bad("%s is not in RECORD", n)
		}
	}
}

// checkHeader reads the executable's own header: the machine it is for,
// and on macOS the oldest release it runs on, which the tag must not
// undercut.
func checkHeader(bin []byte, p platform, bad func(string, ...any)) string {
	r := bytes.NewReader(bin)
	switch p.goos {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			bad("not an ELF executable: %v", err)
			return ""
		}
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[p.goarch]
		if f.Machine != want || f.Type != elf.ET_EXEC {
			bad("ELF %v %v, want %v ET_EXEC", f.Machine, f.Type, want)
		}
		if f.Section(".interp") != nil {
			bad("ELF has an interpreter: not a static binary")
		}
		return fmt.Sprintf("ELF %v static", f.Machine)
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			bad("not a Mach-O executable: %v", err)
			return ""
		}
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[p.goarch]
		if f.Cpu != want || f.Type != macho.TypeExec {
			bad("Mach-O %v %v, want %v executable", f.Cpu, f.Type, want)
		}
		minos := macOSMin(f)
		tagMin := regexp.MustCompile(`^macosx_(\d+)_(\d+)_`).FindStringSubmatch(p.tag)
		if minos == "" || tagMin == nil {
			bad("no LC_BUILD_VERSION in the binary or no macOS release in the tag %s", p.tag)
		} else if !atLeast(tagMin[1]+"."+tagMin[2], minos) {
			bad("the binary needs macOS %s, the tag %s promises older", minos, p.tag)
		}
		return fmt.Sprintf("Mach-O %v, macOS %s+", f.Cpu, minos)
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			bad("not a PE executable: %v", err)
			return ""
		}
		want := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[p.goarch]
		oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
		if f.Machine != want || !ok || oh.Subsystem != pe.IMAGE_SUBSYSTEM_WINDOWS_CUI {
			bad("PE machine %#x, want %#x, a 64-bit console program", f.Machine, want)
		}
		return fmt.Sprintf("PE machine %#x console", f.Machine)
	}
	bad("no header check for GOOS %s", p.goos)
	return ""
}

// macOSMin is minos of LC_BUILD_VERSION ("12.0"), which debug/macho leaves
// as raw bytes.
func macOSMin(f *macho.File) string {
	const lcBuildVersion = 0x32
	for _, l := range f.Loads {
		raw := l.Raw()
		if len(raw) >= 16 && f.ByteOrder.Uint32(raw) == lcBuildVersion {
			v := f.ByteOrder.Uint32(raw[12:])
			return fmt.Sprintf("%d.%d", v>>16, v>>8&0xff)
		}
	}
	return ""
}

// atLeast reports whether release a ("12.0") is at least b.
func atLeast(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < 2; i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x > y
		}
	}
	return true
}
