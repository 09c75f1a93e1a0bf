package proc

import "os"

// OpenRegular opens name as os.OpenFile does, but only a regular file:
// anything else gives ErrNotRegular.
func OpenRegular(name string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = ErrNotRegular
		}
		return nil, err
	}
	return f, nil
}
