package files

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/proc"
)

// FS is one kernel's view of the files: the host under Rules, with an
// overlay in memory on top. With files.write "sandbox" every write goes to
// the overlay and the host is never changed; with "workspace" writes under
// the roots go to the host and the overlay holds only what lies outside
// them (the scratch /tmp). The overlay holds at most Limit bytes of file
// data: the kernel's memory limit. Safe for concurrent use.
type FS struct {
	rules *Rules
	write contract.FilesWrite
	limit int64

	mu      sync.Mutex
	nodes   map[string]*node // kernel path (clean) → overlay entry
	used    int64
	seq     uint64            // inode numbers of overlay entries
	touched map[string]before // what the current execution changed, as it was before
}

// before is a file as it was when an execution first changed it.
type before struct {
	file bool
	data []byte // its overlay content, nil for the host's
	host bool   // the host's version (no overlay entry)
}

// node is one overlay entry. Its data is never changed in place, so
// snapshots share it.
type node struct {
	dir    bool
	gone   bool // deleted: hides the host entry and all below it
	opaque bool // a folder made where one was deleted: the host's entries below stay hidden
	data   []byte
	mtime  time.Time
	ino    uint64
}

// Options configure an FS.
type Options struct {
	Rules *Rules
	Write contract.FilesWrite // "" is sandbox
	// Limit bounds the overlay's file data in bytes (0: unlimited).
	Limit int64
}

// ScratchDir is a folder every kernel has, empty and writable, as in a
// container: HOME and tempfile's folder.
const ScratchDir = "/tmp"

// New returns an FS with an empty overlay.
func New(o Options) *FS {
	if o.Rules == nil {
		o.Rules = NewRules(nil, nil)
	}
	if o.Write == "" {
		o.Write = contract.FilesSandbox
	}
	f := &FS{rules: o.Rules, write: o.Write, limit: o.Limit}
	f.reset()
	return f
}

func (f *FS) reset() {
	f.nodes = map[string]*node{}
	f.used = 0
	if pl, _ := f.rules.locate(ScratchDir); pl == nowhere {
		f.nodes[ScratchDir] = &node{dir: true, mtime: time.Now(), ino: f.nextIno()}
	}
}

// Rules are the FS's rules.
func (f *FS) Rules() *Rules { return f.rules }

// Write is where writes go.
func (f *FS) Write() contract.FilesWrite { return f.write }

// Reset empties the overlay (a kernel restart).
func (f *FS) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reset()
}

// Snapshot is a copy of an overlay, to go back to.
type Snapshot struct {
	nodes map[string]*node
	used  int64
}

// Snapshot copies the overlay (the file data is shared, not copied).
func (f *FS) Snapshot() *Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := &Snapshot{nodes: make(map[string]*node, len(f.nodes)), used: f.used}
	for k, n := range f.nodes {
		c := *n
		s.nodes[k] = &c
	}
	return s
}

// Restore puts the overlay back as it was at s (nil: empty); the changes
// recorded for the current execution are compared against it.
func (f *FS) Restore(s *Snapshot) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s == nil {
		f.reset()
		return
	}
	f.nodes = make(map[string]*node, len(s.nodes))
	for k, n := range s.nodes {
		c := *n
		f.nodes[k] = &c
	}
	f.used = s.used
}

// Info describes a file or folder as the kernel sees it.
type Info struct {
	Dir, Link bool
	Size      int64
	Perm      fs.FileMode
	ModTime   time.Time
	Host      fs.FileInfo // the host's, nil for an overlay entry or a folder above a root
	Ino       uint64      // of an overlay entry
}

// Stat describes kernel path p; follow resolves a final symlink.
func (f *FS) Stat(p string, follow bool) (Info, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stat(Clean(p), follow)
}

func (f *FS) stat(kp string, follow bool) (Info, error) {
	if n, err := f.overlay(kp); err != nil || n != nil {
		if err != nil {
			return Info{}, err
		}
		if n.dir {
			return Info{Dir: true, Perm: 0o755, ModTime: n.mtime, Ino: n.ino}, nil
		}
		return Info{Size: int64(len(n.data)), Perm: 0o644, ModTime: n.mtime, Ino: n.ino}, nil
	}
	h, err := f.rules.stat(kp, follow)
	if err != nil {
		return Info{}, err
	}
	if h.fi == nil {
		return Info{Dir: true, Perm: 0o755}, nil
	}
	return Info{Dir: h.fi.IsDir(), Link: h.link, Size: h.fi.Size(), Perm: h.fi.Mode().Perm(), ModTime: h.fi.ModTime(), Host: h.fi}, nil
}

// overlay returns kp's overlay entry (nil when the host decides), or the
// error an entry above it gives (deleted, or a file).
func (f *FS) overlay(kp string) (*node, error) {
	for a := kp; a != "/"; {
		a = path.Dir(a)
		if n := f.nodes[a]; n != nil {
			if n.gone {
				return nil, notExist(kp)
			}
			if !n.dir {
				return nil, pathErr("stat", kp, syscall.ENOTDIR)
			}
			if n.opaque {
				break // a new folder: nothing of the host below it
			}
		}
	}
	n := f.nodes[kp]
	if n != nil && n.gone {
		return nil, notExist(kp)
	}
	if n == nil && f.underOpaque(kp) {
		return nil, notExist(kp)
	}
	return n, nil
}

// underOpaque reports whether a folder made in the overlay where one was
// deleted lies above kp.
func (f *FS) underOpaque(kp string) bool {
	for a := kp; a != "/"; {
		a = path.Dir(a)
		if n := f.nodes[a]; n != nil && n.opaque {
			return true
		}
	}
	return false
}

// ReadFile reads kernel path p.
func (f *FS) ReadFile(p string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.readFile(Clean(p))
}

func (f *FS) readFile(kp string) ([]byte, error) {
	n, err := f.overlay(kp)
	if err != nil {
		return nil, err
	}
	if n != nil {
		if n.dir {
			return nil, pathErr("read", kp, syscall.EISDIR)
		}
		return n.data, nil
	}
	return f.rules.readFile(kp)
}

// ReadDir lists folder p, sorted.
func (f *FS) ReadDir(p string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.readDir(Clean(p))
}

func (f *FS) readDir(kp string) ([]string, error) {
	info, err := f.stat(kp, true)
	if err != nil {
		return nil, err
	}
	if !info.Dir {
		return nil, pathErr("scandir", kp, syscall.ENOTDIR)
	}
	names := map[string]bool{}
	if n := f.nodes[kp]; (n == nil || !n.opaque) && !f.underOpaque(kp) {
		if host, err := f.rules.readDir(f.rules.resolve(kp)); err == nil {
			for _, name := range host {
				names[name] = true
			}
		}
	}
	prefix := strings.TrimSuffix(kp, "/") + "/"
	for k, n := range f.nodes {
		if rest, ok := strings.CutPrefix(k, prefix); ok && rest != "" && !strings.Contains(rest, "/") {
			names[rest] = !n.gone
		}
	}
	out := make([]string, 0, len(names))
	for name, ok := range names {
		if ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Resolve is p with symlinks resolved as far as they stay in the
// workspace (Path.resolve, os.path.realpath).
func (f *FS) Resolve(p string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	kp := Clean(p)
	if n, _ := f.overlay(kp); n != nil {
		return kp
	}
	return f.rules.resolve(kp)
}

// onHost reports whether a write to kp goes to the host (files.write
// "workspace", under a root).
func (f *FS) onHost(kp string) bool {
	if f.write != contract.FilesWorkspace {
		return false
	}
	pl, _ := f.rules.locate(kp)
	return pl == inside && f.rules.realOK(HostPath(kp))
}

// parentDir checks that the folder kp goes in exists.
func (f *FS) parentDir(kp string) error {
	if kp == "/" {
		return nil
	}
	info, err := f.stat(path.Dir(kp), true)
	if err != nil {
		return notExist(kp)
	}
	if !info.Dir {
		return pathErr("open", kp, syscall.ENOTDIR)
	}
	return nil
}

// touch notes that the current execution changes kp.
func (f *FS) touch(kp string) {
	if f.touched == nil {
		f.touched = map[string]before{}
	}
	if _, ok := f.touched[kp]; !ok {
		info, err := f.stat(kp, false)
		b := before{file: err == nil && !info.Dir}
		if n := f.nodes[kp]; n != nil && !n.gone && !n.dir {
			b.data = n.data
		} else {
			b.host = !f.onHost(kp)
		}
		f.touched[kp] = b
	}
}

// same reports whether file kp is as it was before (an interrupted cell's
// writes were rolled back, or it wrote what was there).
func (f *FS) same(kp string, b before) bool {
	n := f.nodes[kp]
	if b.host {
		return n == nil
	}
	return n != nil && !n.gone && !n.dir && b.data != nil && bytes.Equal(n.data, b.data)
}

// Open does what open(p, mode) does to the file before it is read or
// written: mode is one of r rb w wb a ab. It returns the file's size.
func (f *FS) Open(p, mode string) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	kp := Clean(p)
	info, err := f.stat(kp, true)
	switch {
	case err == nil && info.Dir:
		return 0, pathErr("open", kp, syscall.EISDIR)
	case strings.HasPrefix(mode, "r"):
		return info.Size, err
	case strings.HasPrefix(mode, "w"):
		return 0, f.writeFile(kp, nil, false)
	case err == nil: // append to a file that exists
		return info.Size, nil
	default:
		return 0, f.writeFile(kp, nil, true)
	}
}

// WriteFile writes data to p (replacing it, or appending to it); a
// missing file is made.
func (f *FS) WriteFile(p string, data []byte, appendTo bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writeFile(Clean(p), data, appendTo)
}

func (f *FS) writeFile(kp string, data []byte, appendTo bool) error {
	if err := f.parentDir(kp); err != nil {
		return err
	}
	info, err := f.stat(kp, true)
	if err == nil && info.Dir {
		return pathErr("open", kp, syscall.EISDIR)
	}
	f.touch(kp)
	if f.onHost(kp) {
		flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if appendTo {
			flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		err := writeHost(HostPath(kp), flag, data)
		if errors.Is(err, proc.ErrNotRegular) {
			err = notExist(kp)
		}
		return err
	}
	var old []byte
	if appendTo && err == nil {
		if old, err = f.readFile(kp); err != nil {
			return err
		}
	}
	var had int64
	if n := f.nodes[kp]; n != nil && !n.gone && !n.dir {
		had = int64(len(n.data))
	}
	size := int64(len(old) + len(data))
	if f.limit > 0 && f.used-had+size > f.limit {
		return pathErr("write", kp, syscall.ENOSPC)
	}
	// Appending to an overlay file may reuse its array past its length:
	// a snapshot sharing it only ever reads up to its own length.
	var buf []byte
	if n := f.nodes[kp]; appendTo && n != nil && !n.gone && !n.dir {
		buf = append(n.data, data...)
	} else {
		buf = append(old[:len(old):len(old)], data...)
	}
	f.used += size - had
	f.nodes[kp] = &node{data: buf, mtime: time.Now(), ino: f.inoOf(kp)}
	return nil
}

func (f *FS) nextIno() uint64 {
	f.seq++
	return 1<<40 + f.seq
}

func (f *FS) inoOf(kp string) uint64 {
	if n := f.nodes[kp]; n != nil && !n.gone && n.ino != 0 {
		return n.ino
	}
	return f.nextIno()
}

// Mkdir makes folder p; parents makes the missing folders above it, and
// existOK accepts a folder that exists.
func (f *FS) Mkdir(p string, parents, existOK bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mkdir(Clean(p), parents, existOK)
}

func (f *FS) mkdir(kp string, parents, existOK bool) error {
	if info, err := f.stat(kp, true); err == nil {
		if existOK && info.Dir {
			return nil
		}
		return pathErr("mkdir", kp, syscall.EEXIST)
	}
	if err := f.parentDir(kp); err != nil {
		if !parents || kp == "/" {
			return err
		}
		if err := f.mkdir(path.Dir(kp), true, true); err != nil {
			return err
		}
	}
	if f.onHost(kp) {
		return os.Mkdir(HostPath(kp), 0o755)
	}
	_, hostErr := f.rules.stat(kp, false)
	wasGone := f.nodes[kp] != nil || hostErr == nil
	f.nodes[kp] = &node{dir: true, opaque: wasGone, mtime: time.Now(), ino: f.nextIno()}
	return nil
}

// Remove deletes file p (os.remove).
func (f *FS) Remove(p string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	kp := Clean(p)
	info, err := f.stat(kp, false)
	if err != nil {
		return err
	}
	if info.Dir {
		return pathErr("unlink", kp, syscall.EISDIR)
	}
	f.touch(kp)
	return f.delete(kp)
}

// Rmdir deletes empty folder p.
func (f *FS) Rmdir(p string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	kp := Clean(p)
	info, err := f.stat(kp, false)
	if err != nil {
		return err
	}
	if !info.Dir {
		return pathErr("rmdir", kp, syscall.ENOTDIR)
	}
	if names, err := f.readDir(kp); err != nil {
		return err
	} else if len(names) > 0 {
		return pathErr("rmdir", kp, syscall.ENOTEMPTY)
	}
	return f.delete(kp)
}

// delete removes kp, a file or an empty folder, from the kernel's view.
func (f *FS) delete(kp string) error {
	if f.onHost(kp) {
		return os.Remove(HostPath(kp))
	}
	prefix := kp + "/"
	for k := range f.nodes {
		if strings.HasPrefix(k, prefix) {
			f.drop(k)
		}
	}
	f.drop(kp)
	if _, err := f.rules.stat(kp, false); err == nil && !f.underOpaque(kp) {
		f.nodes[kp] = &node{gone: true}
	}
	return nil
}

func (f *FS) drop(kp string) {
	if n := f.nodes[kp]; n != nil {
		f.used -= int64(len(n.data))
		delete(f.nodes, kp)
	}
}

// Rename moves src to dst (os.rename: a file replaces a file, a folder an
// empty folder).
func (f *FS) Rename(src, dst string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, d := Clean(src), Clean(dst)
	si, err := f.stat(s, false)
	if err != nil {
		return err
	}
	if err := f.parentDir(d); err != nil {
		return err
	}
	if s == d {
		return nil
	}
	if strings.HasPrefix(d, s+"/") {
		return pathErr("rename", s, syscall.EINVAL)
	}
	if di, err := f.stat(d, false); err == nil {
		switch {
		case si.Dir && !di.Dir:
			return pathErr("rename", s, syscall.ENOTDIR)
		case !si.Dir && di.Dir:
			return pathErr("rename", s, syscall.EISDIR)
		case si.Dir:
			if names, _ := f.readDir(d); len(names) > 0 {
				return pathErr("rename", s, syscall.ENOTEMPTY)
			}
		}
		if err := f.delete(d); err != nil {
			return err
		}
	}
	if f.onHost(s) && f.onHost(d) {
		f.touchTree(s)
		f.touchTree(d)
		return os.Rename(HostPath(s), HostPath(d))
	}
	return f.move(s, d, si.Dir)
}

// touchTree notes every file under kp (or kp itself) as changed.
func (f *FS) touchTree(kp string) {
	f.touch(kp)
	if names, err := f.readDir(kp); err == nil {
		for _, n := range names {
			f.touchTree(path.Join(kp, n))
		}
	}
}

// move copies the tree at s to d through the overlay, then deletes s.
func (f *FS) move(s, d string, dir bool) error {
	if !dir {
		data, err := f.readFile(s)
		if err != nil {
			return err
		}
		if err := f.writeFile(d, data, false); err != nil {
			return err
		}
		f.touch(s)
		return f.delete(s)
	}
	if err := f.mkdir(d, false, true); err != nil {
		return err
	}
	names, err := f.readDir(s)
	if err != nil {
		return err
	}
	for _, n := range names {
		info, err := f.stat(path.Join(s, n), false)
		if err != nil {
			continue
		}
		if err := f.move(path.Join(s, n), path.Join(d, n), info.Dir); err != nil {
			return err
		}
	}
	return f.delete(s)
}

// ScanEntry is one entry of a tree walk: its path relative to the walk's
// root ("" is the root), with / between parts.
type ScanEntry struct {
	Rel                string
	Dir, File, Symlink bool
}

// Scan walks the tree at p, the root first: maxDepth < 0 is the whole
// tree, 0 the root only, 1 its entries. follow walks into folder symlinks.
func (f *FS) Scan(p string, maxDepth int, follow bool) ([]ScanEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	kp := Clean(p)
	info, err := f.stat(kp, true)
	if err != nil {
		return nil, err
	}
	out := []ScanEntry{{Rel: "", Dir: info.Dir, File: !info.Dir}}
	if !info.Dir {
		return out, nil
	}
	var walk func(dir, rel string, depth int)
	walk = func(dir, rel string, depth int) {
		if maxDepth >= 0 && depth > maxDepth {
			return
		}
		names, err := f.readDir(dir)
		if err != nil {
			return
		}
		for _, n := range names {
			child, crel := path.Join(dir, n), strings.TrimPrefix(rel+"/"+n, "/")
			li, err := f.stat(child, false)
			if err != nil {
				continue
			}
			e := ScanEntry{Rel: crel, Symlink: li.Link}
			isDir := li.Dir
			if li.Link {
				if ti, err := f.stat(child, true); err == nil {
					isDir = ti.Dir
				}
			}
			e.Dir, e.File = isDir, !isDir
			out = append(out, e)
			if isDir && (!li.Link || follow) {
				walk(child, crel, depth+1)
			}
		}
	}
	walk(kp, "", 1)
	return out, nil
}

// Changes are the files the current execution created, changed or
// deleted, sorted by path; the next execution starts a new list.
func (f *FS) Changes() []contract.FileChange {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []contract.FileChange
	for kp, b := range f.touched {
		info, err := f.stat(kp, false)
		now := err == nil && !info.Dir
		switch {
		case b.file && now:
			if !f.same(kp, b) {
				out = append(out, contract.FileChange{Path: HostPathName(kp), State: contract.FileChanged})
			}
		case now:
			out = append(out, contract.FileChange{Path: HostPathName(kp), State: contract.FileCreated})
		case b.file:
			out = append(out, contract.FileChange{Path: HostPathName(kp), State: contract.FileDeleted})
		}
	}
	f.touched = nil
	slices.SortFunc(out, func(a, b contract.FileChange) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// HostPathName is how records name kernel path kp: its host path.
func HostPathName(kp string) string { return HostPath(kp) }

// Entries lists the overlay's files that differ from the workspace (files
// outside the roots, like /tmp, are the kernel's own and left out), sorted
// by path.
func (f *FS) Entries() []contract.FileEntry {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []contract.FileEntry
	for kp, n := range f.nodes {
		if !f.rules.Visible(kp) || n.dir && !n.opaque {
			continue
		}
		if n.dir { // made where one was deleted: what the host has below is gone
			f.rules.eachHostFile(kp, func(k string) {
				if c := f.nodes[k]; c == nil || c.gone {
					out = append(out, contract.FileEntry{Path: HostPath(k), State: contract.FileDeleted})
				}
			})
			continue
		}
		if n.gone {
			f.rules.eachHostFile(kp, func(k string) {
				out = append(out, contract.FileEntry{Path: HostPath(k), State: contract.FileDeleted})
			})
			continue
		}
		if _, err := f.overlay(kp); err != nil {
			continue // below a deleted folder
		}
		st := contract.FileCreated
		if h, err := f.rules.stat(kp, true); err == nil && !h.isDir() {
			if old, err := proc.ReadRegular(HostPath(kp)); err == nil && bytes.Equal(old, n.data) {
				continue
			}
			st = contract.FileChanged
		}
		out = append(out, contract.FileEntry{Path: HostPath(kp), Size: len(n.data), State: st})
	}
	slices.SortFunc(out, func(a, b contract.FileEntry) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// eachHostFile calls fn for every visible host file at or under kp.
func (r *Rules) eachHostFile(kp string, fn func(kp string)) {
	h, err := r.stat(kp, false)
	if err != nil {
		return
	}
	if !h.isDir() {
		fn(kp)
		return
	}
	names, _ := r.readDir(kp)
	for _, n := range names {
		r.eachHostFile(path.Join(kp, n), fn)
	}
}

// Save writes the overlay's version of each of paths (host paths as
// Entries gives them) to the workspace: a created or changed file is
// written (with the folders it needs), a deleted one removed. It returns
// the paths saved and the first error.
func (f *FS) Save(paths []string) ([]string, error) {
	entries := f.Entries()
	f.mu.Lock()
	defer f.mu.Unlock()
	state := map[string]contract.FileState{}
	for _, e := range entries {
		state[e.Path] = e.State
	}
	saved := []string{}
	for _, p := range paths {
		st, ok := state[p]
		if !ok {
			return saved, &fs.PathError{Op: "save", Path: p, Err: ErrNotInOverlay}
		}
		kp := KernelPath(p)
		var data []byte
		if st != contract.FileDeleted {
			data = f.nodes[kp].data
		}
		if err := SaveToHost(f.rules, p, data, st == contract.FileDeleted); err != nil {
			return saved, err
		}
		if st != contract.FileDeleted {
			f.drop(kp) // the host has it now
		}
		saved = append(saved, p)
	}
	return saved, nil
}

// SaveToHost writes data to host file p (with the folders it needs), or
// removes it, if the rules let a kernel see p: nothing is written outside
// the roots, under a hidden name or through a link that leads out.
func SaveToHost(r *Rules, p string, data []byte, remove bool) error {
	kp := KernelPath(p)
	if !filepath.IsAbs(p) || !r.Visible(kp) || !r.realOK(p) {
		return &fs.PathError{Op: "save", Path: p, Err: fs.ErrPermission}
	}
	if remove {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return writeHost(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, data)
}

// writeHost writes data to host file p opened with flag: a regular file
// only (a FIFO or device in its place gives proc.ErrNotRegular).
func writeHost(p string, flag int, data []byte) error {
	f, err := proc.OpenRegular(p, flag, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

type saveError string

func (e saveError) Error() string { return string(e) }

// ErrNotInOverlay is the error of saving a path the kernel did not change.
const ErrNotInOverlay = saveError("not a file the kernel changed")
