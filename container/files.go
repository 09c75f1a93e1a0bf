package container

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/docker/docker/api/types/mount"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/files"
)

// The container sees the workspace at its host paths, so a path means the
// same on every backend. With files.write "sandbox" each root is an
// in-memory tmpfs (counted against the container's memory limit) into
// which the host copies what Rules let the kernel see, before the first
// cell: the container never sees a hidden file, and its writes never reach
// the host. A workspace too large to copy is mounted read-only instead,
// hidden names masked (empty), and the kernel's info says so; with
// "workspace" the roots are mounted read-write.

// Limits of the copy into a sandbox overlay.
const (
	// maxCopyEntries bounds the files and folders copied.
	maxCopyEntries = 20000
	// putChunk is the file data sent in one put message.
	putChunk = 4 << 20
	// maxMasks bounds the hidden entries masked in a read-only mount, and
	// maxMaskScan the entries looked at to find them.
	maxMasks    = 200
	maxMaskScan = 200000
	// maxMasksRunsc is the bound under gVisor: its sandbox fails to start
	// (StartRoot: EOF, or a start that never returns) past about 58 mounts
	// of the kernel's spec, so a workspace with more hidden entries is not
	// mounted at all.
	maxMasksRunsc = 40
)

// maskLimit is maxMasks for the runtime named runtime.
func maskLimit(runtime string) int {
	if runtime == RuntimeRunsc {
		return maxMasksRunsc
	}
	return maxMasks
}

// filePlan is how the container gets the workspace.
type filePlan struct {
	rules  *files.Rules
	write  contract.FilesWrite
	limit  int    // masks allowed (maskLimit)
	dir    string // working directory (host path)
	copied bool   // roots are tmpfs overlays filled by put
	puts   []fileMsg
	bytes  int64
	masks  []mount.Mount // hidden entries of a read-only mount
	note   string        // why the workspace is read-only or missing
}

// FilesCurrent reports whether the workspace is still what the session
// got when it started (for a container started ahead of its first cell):
// the same files, folders and links, modes and modification times. A
// read-only or read-write mount is always current.
func (s *Session) FilesCurrent() bool {
	if s.plan == nil || !s.plan.copied {
		return true
	}
	now, err := planFiles(s.cfg, s.Runtime().Name)
	if err != nil || !now.copied || len(now.puts) != len(s.plan.puts) {
		return false
	}
	for i, m := range now.puts {
		was := s.plan.puts[i]
		if m.Path != was.Path || m.Kind != was.Kind || m.Mode != was.Mode || m.Target != was.Target || (m.MTime == nil) != (was.MTime == nil) || (m.MTime != nil && *m.MTime != *was.MTime) {
			return false
		}
	}
	return true
}

// planFiles decides, from the host's tree, how the container gets it
// under the runtime named runtime.
func planFiles(cfg Config, runtime string) (*filePlan, error) {
	p := &filePlan{rules: cfg.Rules, write: cfg.Write, dir: cfg.Dir, limit: maskLimit(runtime)}
	if p.rules == nil {
		var roots []string
		if cfg.MountWorkspace && cfg.Workspace != "" {
			roots = []string{cfg.Workspace}
		}
		p.rules = files.NewRules(roots, nil)
	}
	if p.write == "" {
		p.write = contract.FilesSandbox
	}
	if len(p.rules.Roots()) == 0 {
		return p, nil
	}
	if p.write == contract.FilesWorkspace {
		if err := p.maskHidden(); err != nil {
			p.note = "the workspace holds too many hidden files to mask: the container does not see it"
			p.rules, p.masks = files.NewRules(nil, nil), nil
		}
		return p, nil
	}
	limit := cfg.CopyBytes
	if limit <= 0 {
		limit = cfg.MemoryBytes / 4
	}
	entries := 0
	p.copied = true
	err := p.rules.Walk(func(kp, host string, fi fs.FileInfo) error {
		entries++
		if entries > maxCopyEntries {
			return errTooMany
		}
		if isRoot(p.rules, kp) {
			return nil
		}
		mt := float64(fi.ModTime().UnixNano()) / 1e9
		m := fileMsg{Path: host, Mode: uint32(fi.Mode().Perm()), MTime: &mt}
		switch {
		case fi.IsDir():
			m.Kind = "d"
		case fi.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(host)
			if err != nil {
				return nil
			}
			m.Kind, m.Target, m.MTime = "l", t, nil
		case fi.Mode().IsRegular():
			p.bytes += fi.Size()
			if p.bytes > limit {
				return errTooBig
			}
			m.Kind, m.Size = "f", fi.Size()
		default:
			return nil // sockets, devices: not files a notebook reads
		}
		p.puts = append(p.puts, m)
		return nil
	})
	switch err {
	case nil:
		return p, nil
	case errTooBig, errTooMany:
	default:
		return nil, err
	}
	// Read-only, hidden names masked.
	p.copied, p.puts = false, nil
	what := fmt.Sprintf("more than %d MiB", limit>>20)
	if err == errTooMany {
		what = fmt.Sprintf("more than %d files", maxCopyEntries)
	}
	p.note = fmt.Sprintf("the workspace (%s) is too large to copy into the container's in-memory overlay: it is read-only in this kernel (raise backyard.memory, or set backyard.files.write to workspace)", what)
	err = p.maskHidden()
	if err != nil {
		p.note = fmt.Sprintf("the workspace (%s) holds too many hidden files to mask: the container does not see it", what)
		p.rules = files.NewRules(nil, nil)
		p.masks = nil
	}
	return p, nil
}

type planError string

func (e planError) Error() string { return string(e) }

const (
	errTooBig  = planError("too big")
	errTooMany = planError("too many")
)

func isRoot(r *files.Rules, kp string) bool {
	for _, root := range r.Roots() {
		if root == kp {
			return true
		}
	}
	return false
}

// maskHidden lists a mount over each hidden entry of the roots: an empty
// read-only tmpfs over a folder, /dev/null over a file.
func (p *filePlan) maskHidden() error {
	budget := maxMaskScan
	for _, root := range p.rules.HostRoots() {
		err := walkHidden(p.rules, root, &budget, func(host string, dir bool) error {
			if len(p.masks) >= p.limit {
				return errTooMany
			}
			if dir {
				p.masks = append(p.masks, mount.Mount{Type: mount.TypeTmpfs, Target: host, ReadOnly: true, TmpfsOptions: &mount.TmpfsOptions{SizeBytes: 4096}})
			} else {
				p.masks = append(p.masks, mount.Mount{Type: mount.TypeBind, Source: os.DevNull, Target: host, ReadOnly: true})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// walkHidden calls fn for every entry under root whose name is hidden
// (not looking inside hidden folders), looking at most at *budget entries.
func walkHidden(r *files.Rules, root string, budget *int, fn func(host string, dir bool) error) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	if *budget -= len(entries); *budget < 0 {
		return errTooMany
	}
	for _, e := range entries {
		p := root + string(os.PathSeparator) + e.Name()
		if r.HiddenIn(root, e.Name()) {
			if err := fn(p, e.IsDir()); err != nil {
				return err
			}
			continue
		}
		if e.IsDir() {
			if err := walkHidden(r, p, budget, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// mounts are the workspace's mounts and tmpfs overlays.
func (p *filePlan) mounts(tmpBytes int64) ([]mount.Mount, map[string]string) {
	var ms []mount.Mount
	tmpfs := map[string]string{}
	for _, root := range p.rules.HostRoots() {
		switch {
		case p.copied:
			tmpfs[root] = fmt.Sprintf("rw,nosuid,nodev,size=%d,mode=1777", tmpBytes)
		default:
			ms = append(ms, mount.Mount{Type: mount.TypeBind, Source: root, Target: root, ReadOnly: p.write != contract.FilesWorkspace})
		}
	}
	return append(ms, p.masks...), tmpfs
}

// loadFiles copies the plan's files into the container and tells the
// driver the roots and the working directory.
func (s *Session) loadFiles(ctx context.Context, p *filePlan) error {
	var batch []fileMsg
	var data [][]byte
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		_, err := s.requestFrame(ctx, msgPut, func(id uint64) ([]byte, error) { return putFrames(id, batch, data) })
		batch, data, size = nil, nil, 0
		return err
	}
	for _, m := range p.puts {
		if m.Kind == "f" {
			d, err := os.ReadFile(m.Path)
			if err != nil {
				continue // vanished since the walk
			}
			sum := sha256.Sum256(d)
			m.Size, m.Hash = int64(len(d)), hex.EncodeToString(sum[:])
			data = append(data, d)
			size += len(d)
		}
		batch = append(batch, m)
		if size >= putChunk {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	var roots []string // where cells can write: tracked for changes
	if p.copied || p.write == contract.FilesWorkspace {
		roots = p.rules.HostRoots()
	}
	dir := p.dir
	if dir == "" {
		if r := p.rules.HostRoots(); len(r) > 0 {
			dir = r[0]
		}
	}
	reply, err := s.request(ctx, message{T: msgBase, Roots: roots, Cwd: dir}, msgBase)
	if err == nil && reply.Message != "" {
		s.log.Warn("kernel working directory", zap.String("why", reply.Message))
	}
	return err
}

// Overlay lists the files that differ from the workspace: created,
// changed or deleted by cells (empty unless files.write is "sandbox").
func (s *Session) Overlay(ctx context.Context) ([]contract.FileEntry, error) {
	if s.plan == nil || !s.plan.copied {
		return nil, nil
	}
	m, err := s.request(ctx, message{T: msgOverlay}, msgOverlay)
	if err != nil {
		return nil, err
	}
	out := make([]contract.FileEntry, 0, len(m.Files))
	for _, f := range m.Files {
		out = append(out, contract.FileEntry{Path: f.Path, Size: int(f.Size), State: contract.FileState(f.State)})
	}
	return out, nil
}

// SaveFiles writes the container's version of paths (as Overlay names
// them) to the workspace: a deleted file is removed. It returns the paths
// saved.
func (s *Session) SaveFiles(ctx context.Context, paths []string) ([]string, error) {
	entries, err := s.Overlay(ctx)
	if err != nil {
		return nil, err
	}
	state := map[string]contract.FileState{}
	for _, e := range entries {
		state[e.Path] = e.State
	}
	for _, p := range paths {
		if _, ok := state[p]; !ok {
			return nil, &fs.PathError{Op: "save", Path: p, Err: files.ErrNotInOverlay}
		}
	}
	m, err := s.request(ctx, message{T: msgRead, Paths: paths}, msgRead)
	if err != nil {
		return nil, err
	}
	saved := []string{}
	var done []fileMsg
	var firstErr error
	for _, f := range m.Files {
		var data []byte
		deleted := f.State == string(contract.FileDeleted)
		if !deleted {
			if data, err = base64.StdEncoding.DecodeString(f.Data); err != nil {
				firstErr = err
				break
			}
		}
		if err := files.SaveToHost(s.plan.rules, f.Path, data, deleted); err != nil {
			firstErr = err
			break
		}
		saved = append(saved, f.Path)
		done = append(done, fileMsg{Path: f.Path})
	}
	if len(done) > 0 {
		if _, err := s.request(ctx, message{T: msgBased, Files: done}, msgBased); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	sort.Strings(saved)
	return saved, firstErr
}

// FilesNote says why the container's workspace is read-only or missing;
// "" when it is as the settings ask.
func (s *Session) FilesNote() string {
	if s.plan == nil {
		return ""
	}
	return s.plan.note
}

// putFrames are the frames of a put request: the request, then the files'
// data one after the other, raw (base64 in JSON costs more than the copy).
func putFrames(id uint64, batch []fileMsg, data [][]byte) ([]byte, error) {
	total := 0
	for _, d := range data {
		total += len(d)
	}
	buf, err := appendFrame(nil, message{T: msgPut, ID: id, Files: batch, Raw: total})
	if err != nil {
		return nil, err
	}
	if total > maxFrame {
		return nil, fmt.Errorf("frame of %d bytes exceeds the %d-byte limit", total, maxFrame)
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(total))
	for _, d := range data {
		buf = append(buf, d...)
	}
	return buf, nil
}

// request sends m (with a new id) and waits for the driver's answer of
// kind want; output that arrives meanwhile is kept for the next cell.
func (s *Session) request(ctx context.Context, m message, want string) (message, error) {
	return s.requestFrame(ctx, want, func(id uint64) ([]byte, error) {
		m.ID = id
		return appendFrame(nil, m)
	})
}

// requestFrame sends the frame made for a new id and waits for the
// driver's answer of kind want with that id.
func (s *Session) requestFrame(ctx context.Context, want string, frame func(id uint64) ([]byte, error)) (message, error) {
	id := s.nextID.Add(1)
	buf, err := frame(id)
	if err != nil {
		return message{}, err
	}
	s.wmu.Lock()
	_, err = s.conn.Conn.Write(buf)
	s.wmu.Unlock()
	if err != nil {
		return message{}, fmt.Errorf("send to kernel driver: %w", err)
	}
	m := message{ID: id}
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	for {
		select {
		case r, ok := <-s.events:
			if !ok {
				return message{}, fmt.Errorf("%w: %s", ErrEnded, s.Exit(context.Background()).Describe())
			}
			switch {
			case r.T == msgOut:
				s.stash = append(s.stash, r)
			case r.T == want && r.ID == m.ID:
				return r, nil
			case r.T == msgError:
				return message{}, fmt.Errorf("kernel driver: %s", r.Message)
			}
		case <-timeout.C:
			return message{}, fmt.Errorf("the kernel driver did not answer %s within a minute", m.T)
		case <-ctx.Done():
			return message{}, context.Cause(ctx)
		}
	}
}
