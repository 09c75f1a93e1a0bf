//go:build unix && !linux

package proc

import "os"

// pseudoFS: the pseudo-file folders are kept out by path here.
func pseudoFS(*os.File) bool { return false }
