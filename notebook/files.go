package notebook

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// Files lists the files the document's kernel wrote that differ from the
// workspace (its overlay), after the runs queued before it.
func (d *Document) Files() (contract.Reply[*contract.FilesResult], error) {
	return control(d.sess, func(s *session) (*contract.FilesResult, error) {
		res := &contract.FilesResult{Files: []contract.FileEntry{}, Write: s.config().Settings.Files.Write}
		fk, ctx, cancel := s.fileKeeper()
		defer cancel()
		if fk == nil {
			return res, nil
		}
		entries, err := fk.Files(ctx)
		if err != nil {
			return nil, err
		}
		if entries != nil {
			res.Files = entries
		}
		return res, nil
	})
}

// SaveFiles writes the kernel's version of paths (as Files lists them) to
// the workspace, after the runs queued before it.
func (d *Document) SaveFiles(paths []string) (contract.Reply[*contract.SaveFilesResult], error) {
	return control(d.sess, func(s *session) (*contract.SaveFilesResult, error) {
		fk, ctx, cancel := s.fileKeeper()
		defer cancel()
		if fk == nil {
			if len(paths) == 0 {
				return &contract.SaveFilesResult{Saved: []string{}}, nil
			}
			return nil, fmt.Errorf("the kernel has no files to save (it has not run yet)")
		}
		saved, err := fk.SaveFiles(ctx, paths)
		if saved == nil {
			saved = []string{}
		}
		if err != nil {
			return nil, fmt.Errorf("saved %d of %d files: %w", len(saved), len(paths), err)
		}
		return &contract.SaveFilesResult{Saved: saved}, nil
	})
}

// fileKeeper is the document's kernel when it keeps an overlay; nil when
// there is no kernel yet.
func (s *session) fileKeeper() (kernel.FileKeeper, context.Context, context.CancelFunc) {
	s.mu.Lock()
	k := s.k
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(s.nb.life, time.Minute)
	fk, _ := k.(kernel.FileKeeper)
	return fk, ctx, cancel
}

// FileScope is what the kernel of document docURI sees, given the
// workspace folders: it runs in the document's folder (an untitled
// document in the first folder) and sees the folders, plus the document's
// project (ProjectRoot) when it lies outside them, unless that is broad (a
// drive's root, the home folder).
func FileScope(docURI string, folders []string) (dir string, roots []string) {
	roots = append([]string(nil), folders...)
	p := DocumentPath(docURI)
	if p == "" {
		if len(roots) > 0 {
			dir = roots[0]
		}
		return dir, roots
	}
	dir = filepath.Dir(p)
	for _, r := range roots {
		if rel, err := filepath.Rel(r, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return dir, roots
		}
	}
	if root, ok := ProjectRoot(dir); ok {
		return dir, append(roots, root)
	}
	return dir, roots // not the whole disk or home
}

// DocumentPath is the file a document URI names, "" for a URI that is no
// file: URI.
func DocumentPath(docURI string) string {
	u, err := url.Parse(docURI)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return ""
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/") // file:///C:/x
	}
	return filepath.FromSlash(p)
}

// FileMark is the sign of a file change: + created, ~ changed, - deleted.
func FileMark(s contract.FileState) string {
	switch s {
	case contract.FileCreated:
		return "+"
	case contract.FileDeleted:
		return "-"
	}
	return "~"
}

// RelPath is p relative to folder dir when it lies below it, else p.
func RelPath(dir, p string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if rel, err := filepath.Rel(dir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return p
}

// FileSummary counts file changes by sign: "+1 ~2 -1" (zero counts left
// out); "" for none.
func FileSummary(changes []contract.FileChange) string {
	counts := map[contract.FileState]int{}
	for _, c := range changes {
		counts[c.State]++
	}
	var parts []string
	for _, st := range []contract.FileState{contract.FileCreated, contract.FileChanged, contract.FileDeleted} {
		if n := counts[st]; n > 0 {
			parts = append(parts, FileMark(st)+strconv.Itoa(n))
		}
	}
	return strings.Join(parts, " ")
}
