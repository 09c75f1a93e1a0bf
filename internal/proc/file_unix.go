//go:build unix

package proc

import (
	"errors"
	"os"
	"syscall"
)

// OpenRegular opens name as os.OpenFile does, but only a regular file of an
// ordinary file system: a FIFO, socket or device (which could block the
// open or a read, or reach another process) and the pseudo-files of /proc
// and /sys give ErrNotRegular. The open never blocks.
func OpenRegular(name string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(name, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) { // a FIFO with no reader
			return nil, ErrNotRegular
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && (!fi.Mode().IsRegular() || pseudoFS(f)) {
		err = ErrNotRegular
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
