// Package files is what of the host a kernel sees and where its writes go:
// the workspace folders, read-only, less the hidden names (Rules), seen
// through a per-kernel overlay that keeps the files a cell writes in memory
// (FS). The Monty kernel serves its worker's file-system calls from an FS;
// the container kernel gives its container the same view (Rules.Walk) and
// reports the same changes.
//
// Paths: a kernel names files by absolute POSIX paths equal to the host's
// (so a path means the same on every backend); on Windows "C:\x" is "/C:/x".
package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/backyard-ls/backyard-ls/internal/proc"
)

// Rules say what of the host a kernel sees: the regular files and folders
// under its roots (symlinks are followed only where they stay under a
// root) whose path, below the root, has no part matching a hide pattern.
// Everything else does not exist for the kernel: FIFOs, sockets, devices
// and whatever lies in the system's pseudo-file folders (/proc, /sys,
// /dev), whatever the roots; the folders above a root are seen holding
// only the way to the root.
type Rules struct {
	roots []root
	hide  [][]string // patterns, split at /
}

// Key identifies what the rules let a kernel see (two Rules with equal
// keys show the same files), for caches keyed by configuration.
func (r *Rules) Key() string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("%q %q", r.Roots(), r.hide)
}

type root struct {
	kpath string // as the kernel names it
	real  string // host path with symlinks resolved
}

// NewRules returns the rules for host folders roots (absolute; missing
// ones are left out) and hide patterns (path.Match syntax, matched against
// single names; a pattern with / in it, such as .config/gh, against as
// many consecutive names).
func NewRules(roots []string, hide []string) *Rules {
	r := &Rules{}
	for _, h := range hide {
		parts := strings.Split(strings.Trim(h, "/"), "/")
		ok := h != ""
		for _, p := range parts {
			if _, err := path.Match(p, ""); err != nil || p == "" {
				ok = false
			}
		}
		if ok {
			r.hide = append(r.hide, parts)
		}
	}
	seen := map[string]bool{}
	for _, host := range roots {
		if host == "" || !filepath.IsAbs(host) {
			continue
		}
		host = filepath.Clean(host)
		real, err := filepath.EvalSymlinks(host)
		if err != nil {
			continue
		}
		kp := KernelPath(host)
		if seen[kp] {
			continue
		}
		seen[kp] = true
		r.roots = append(r.roots, root{kpath: kp, real: real})
	}
	return r
}

// Roots are the roots as the kernel names them.
func (r *Rules) Roots() []string {
	out := make([]string, len(r.roots))
	for i, rt := range r.roots {
		out[i] = rt.kpath
	}
	return out
}

// HostRoots are the roots as host paths.
func (r *Rules) HostRoots() []string {
	out := make([]string, len(r.roots))
	for i, rt := range r.roots {
		out[i] = HostPath(rt.kpath)
	}
	return out
}

// HiddenIn reports whether entry name of host folder dir matches a hide
// pattern (what lies above dir is not looked at).
func (r *Rules) HiddenIn(dir, name string) bool {
	parts := splitPath(KernelPath(dir))
	return r.hiddenAt(append(parts, name), len(parts))
}

// hiddenAt reports whether a part of parts (the names of a kernel path),
// from index from on, ends a match of a hide pattern; the names before it
// count for patterns of several parts.
func (r *Rules) hiddenAt(parts []string, from int) bool {
	for i := max(from, 0); i < len(parts); i++ {
		for _, h := range r.hide {
			if i+1 < len(h) {
				continue
			}
			match := true
			for j, pat := range h {
				if ok, _ := path.Match(pat, parts[i+1-len(h)+j]); !ok {
					match = false
					break
				}
			}
			if match {
				return true
			}
		}
	}
	return false
}

// splitPath are the names of kernel path kp ("/" has none).
func splitPath(kp string) []string {
	kp = strings.Trim(kp, "/")
	if kp == "" {
		return nil
	}
	return strings.Split(kp, "/")
}

// systemDirs hold the kernel's and devices' pseudo-files: never part of
// what a kernel sees, whatever the roots (reading /proc/self/environ
// would give the server's environment, /dev/stdin its protocol stream).
var systemDirs = []string{"/proc", "/sys", "/dev"}

// systemPath reports whether kernel path kp (clean) is or lies in a
// system folder.
func systemPath(kp string) bool {
	for _, d := range systemDirs {
		if kp == d || strings.HasPrefix(kp, d+"/") {
			return true
		}
	}
	return false
}

// plain reports whether a file of mode m is one a kernel may see: a
// regular file or folder (a link is judged by its target).
func plain(m fs.FileMode) bool { return m.IsRegular() || m.IsDir() }

// KernelPath is the kernel's name of host path p.
func KernelPath(p string) string {
	p = filepath.ToSlash(filepath.Clean(p))
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x → /C:/x
	}
	return p
}

// HostPath is the host path of kernel path kp.
func HostPath(kp string) string {
	if len(kp) >= 3 && kp[0] == '/' && kp[2] == ':' {
		kp = kp[1:]
	}
	return filepath.FromSlash(kp)
}

// Clean normalises a kernel path lexically ("" is "/").
func Clean(kp string) string {
	return path.Clean("/" + kp)
}

// where a kernel path lies.
type place int

const (
	nowhere  place = iota // outside every root: does not exist
	above                 // a folder above a root
	inside                // under a root, not hidden
	hiddenIn              // under a root, hidden
)

// locate says where kernel path kp (clean) lies; for inside, the root.
func (r *Rules) locate(kp string) (place, *root) {
	if systemPath(kp) {
		return nowhere, nil
	}
	pl := nowhere
	for i := range r.roots {
		rt := &r.roots[i]
		if kp == rt.kpath {
			return inside, rt
		}
		if rel, ok := strings.CutPrefix(kp, rt.kpath); ok && (strings.HasSuffix(rt.kpath, "/") || strings.HasPrefix(rel, "/")) {
			if r.hiddenAt(splitPath(kp), len(splitPath(rt.kpath))) {
				return hiddenIn, rt
			}
			return inside, rt
		}
		if strings.HasPrefix(rt.kpath, kp+"/") {
			pl = above
		}
	}
	if kp == "/" {
		pl = above // every kernel has a root folder
	}
	return pl, nil
}

// Visible reports whether kernel path kp is under a root and not hidden
// (whether or not it exists).
func (r *Rules) Visible(kp string) bool {
	pl, _ := r.locate(Clean(kp))
	return pl == inside
}

// childrenAbove are the names of the parts below folder kp on the way to
// the roots under it.
func (r *Rules) childrenAbove(kp string) []string {
	var out []string
	seen := map[string]bool{}
	prefix := strings.TrimSuffix(kp, "/") + "/"
	for _, rt := range r.roots {
		if rest, ok := strings.CutPrefix(rt.kpath, prefix); ok && rest != "" {
			name, _, _ := strings.Cut(rest, "/")
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	return out
}

// realOK reports whether host path p, symlinks resolved, is still under a
// root, not hidden there, and a regular file or folder: a link that leads
// out (or into a hidden folder, or to a device) makes the path not exist.
// A missing path is fine.
func (r *Rules) realOK(p string) bool {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) && r.realOK(filepath.Dir(p)) || filepath.Dir(p) == p
	}
	if systemPath(KernelPath(real)) {
		return false
	}
	if fi, err := os.Stat(real); err != nil || !plain(fi.Mode()) {
		return false
	}
	for _, rt := range r.roots {
		rel, err := filepath.Rel(rt.real, real)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if !r.hiddenAt(splitPath(KernelPath(real)), len(splitPath(KernelPath(rt.real)))) {
			return true
		}
	}
	return false
}

// hostInfo is what the kernel sees of a path on the host.
type hostInfo struct {
	fi   fs.FileInfo // nil for a folder above a root
	link bool        // a symlink (that stays in the workspace)
}

func (h hostInfo) isDir() bool { return h.fi == nil || h.fi.IsDir() }

// stat looks kernel path kp (clean) up on the host under the rules;
// follow resolves a final symlink.
func (r *Rules) stat(kp string, follow bool) (hostInfo, error) {
	pl, _ := r.locate(kp)
	switch pl {
	case above:
		return hostInfo{}, nil
	case inside:
	default:
		return hostInfo{}, notExist(kp)
	}
	host := HostPath(kp)
	fi, err := os.Lstat(host)
	if err != nil {
		return hostInfo{}, r.lookupErr(kp, host, err)
	}
	if !r.realOK(host) {
		return hostInfo{}, notExist(kp)
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		if !plain(fi.Mode()) {
			return hostInfo{}, notExist(kp)
		}
		return hostInfo{fi: fi}, nil
	}
	if !follow {
		return hostInfo{fi: fi, link: true}, nil
	}
	fi, err = os.Stat(host)
	if err != nil {
		return hostInfo{}, err
	}
	if !plain(fi.Mode()) {
		return hostInfo{}, notExist(kp)
	}
	return hostInfo{fi: fi}, nil
}

// lookupErr is the error of a kernel path whose host path could not be
// looked up: "not a folder" only when the file in the way is one the
// kernel sees (a FIFO in the way does not exist).
func (r *Rules) lookupErr(kp, host string, err error) error {
	if !errors.Is(err, syscall.ENOTDIR) {
		return err
	}
	for d := filepath.Dir(host); d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, e := os.Lstat(d); e == nil {
			if r.realOK(d) {
				return err
			}
			break
		}
	}
	return notExist(kp)
}

// readDir lists host folder kp (clean) under the rules: hidden names and
// links that lead out are left out.
func (r *Rules) readDir(kp string) ([]string, error) {
	pl, _ := r.locate(kp)
	switch pl {
	case above:
		return r.childrenAbove(kp), nil
	case inside:
	default:
		return nil, notExist(kp)
	}
	host := HostPath(kp)
	if !r.realOK(host) {
		return nil, notExist(kp)
	}
	entries, err := os.ReadDir(host)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(entries))
	parts := splitPath(kp)
	for _, e := range entries {
		if r.hiddenAt(append(parts[:len(parts):len(parts)], e.Name()), len(parts)) || systemPath(path.Join(kp, e.Name())) {
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 && !r.realOK(filepath.Join(host, e.Name())) {
			continue
		}
		if e.Type()&fs.ModeSymlink == 0 && e.Type()&^fs.ModeDir != 0 {
			continue // FIFOs, sockets, devices
		}
		out = append(out, e.Name())
	}
	return out, nil
}

// readFile reads host file kp (clean) under the rules.
func (r *Rules) readFile(kp string) ([]byte, error) {
	h, err := r.stat(kp, true)
	if err != nil {
		return nil, err
	}
	if h.isDir() {
		return nil, pathErr("read", kp, syscall.EISDIR)
	}
	data, err := proc.ReadRegular(HostPath(kp))
	if errors.Is(err, proc.ErrNotRegular) {
		return nil, notExist(kp) // swapped for a FIFO or a device since the stat
	}
	return data, err
}

// resolve is kp with symlinks resolved as far as they stay under a root
// (Path.resolve, os.path.realpath); the rest stays as written.
func (r *Rules) resolve(kp string) string {
	pl, rt := r.locate(kp)
	if pl != inside {
		return kp
	}
	host := HostPath(kp)
	// The longest part of the path that exists is resolved; the rest
	// is appended as written.
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(host)
		if err == nil {
			if !r.realOK(host) {
				return kp
			}
			for _, rt2 := range r.roots {
				if rel, err := filepath.Rel(rt2.real, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
					return Clean(path.Join(rt2.kpath, filepath.ToSlash(rel), rest))
				}
			}
			return kp
		}
		if KernelPath(host) == rt.kpath {
			return kp
		}
		rest = path.Join(filepath.Base(host), rest)
		host = filepath.Dir(host)
	}
}

// Walk calls fn for every visible entry under the roots, folders before
// what they hold; fn gets the kernel path, the host path and its Lstat
// info (links that stay in the workspace are given as links). fn returning
// fs.SkipDir skips a folder; any other error stops the walk.
func (r *Rules) Walk(fn func(kp, host string, fi fs.FileInfo) error) error {
	for _, rt := range r.roots {
		host := HostPath(rt.kpath)
		err := filepath.WalkDir(host, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == host {
					return err
				}
				return nil // vanished or unreadable: not seen
			}
			if p != host && r.HiddenIn(filepath.Dir(p), d.Name()) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 && !r.realOK(p) {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			return fn(KernelPath(p), p, fi)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func pathErr(op, kp string, errno syscall.Errno) error {
	return &fs.PathError{Op: op, Path: kp, Err: errno}
}

func notExist(kp string) error { return pathErr("stat", kp, syscall.ENOENT) }
