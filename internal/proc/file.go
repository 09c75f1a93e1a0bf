package proc

import (
	"errors"
	"io"
	"os"
)

// ErrNotRegular is the error of OpenRegular for anything but a regular
// file of an ordinary file system.
var ErrNotRegular = errors.New("not a regular file")

// ReadRegular reads the regular file name (see OpenRegular).
func ReadRegular(name string) ([]byte, error) {
	f, err := OpenRegular(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
