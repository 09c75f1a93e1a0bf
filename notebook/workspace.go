package notebook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A kernel sees a narrow workspace by default: a notebook's project
// (ProjectRoot), never the file system's root or the user's home (Broad),
// whose dotfiles hold credentials, unless a flag or setting says so.

// projectMarkers mark a project's root folder.
var projectMarkers = []string{".git", "pyproject.toml", "setup.cfg"}

// Broad reports whether folder dir is too broad to show a kernel unasked:
// a file system's root, the user's home folder or a folder above it.
func Broad(dir string) bool {
	dir = realPath(dir)
	if filepath.Dir(dir) == dir {
		return true
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return false
	}
	return within(realPath(home), dir)
}

// within reports whether path p is folder dir or lies below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func realPath(p string) string {
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// ProjectRoot is the folder a kernel of a notebook in folder dir sees by
// default: the nearest folder at or above dir that holds .git,
// pyproject.toml or setup.cfg and is not broad, else dir itself; ok is
// false when that is broad (a notebook in the home folder), and the kernel
// then sees no folder.
func ProjectRoot(dir string) (root string, ok bool) {
	for d := dir; !Broad(d); d = filepath.Dir(d) {
		for _, m := range projectMarkers {
			if _, err := os.Lstat(filepath.Join(d, m)); err == nil {
				return d, true
			}
		}
	}
	return dir, !Broad(dir)
}

// NarrowFolders are the workspace folders a kernel sees: the broad ones
// are left out unless allowBroad. The warnings say which were left out, or
// which broad ones are seen because allowBroad says so.
func NarrowFolders(folders []string, allowBroad bool) (kept []string, warnings []string) {
	for _, f := range folders {
		switch {
		case !Broad(f):
			kept = append(kept, f)
		case allowBroad:
			kept = append(kept, f)
			warnings = append(warnings, BroadWarning(f))
		default:
			warnings = append(warnings, fmt.Sprintf("the workspace folder %s is the file system's root or the home folder: kernels see each document's project folder instead (backyard.files.broadWorkspace shows it all)", f))
		}
	}
	return kept, warnings
}

// BroadWarning is the warning for a broad folder that kernels see because
// a flag or setting said so.
func BroadWarning(dir string) string {
	return fmt.Sprintf("kernels see all of %s, the file system's root or the home folder (less the hidden names): cells can read the files kept there", dir)
}
