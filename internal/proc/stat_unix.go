//go:build unix

package proc

import (
	"io/fs"
	"syscall"
)

// FileIDs are the inode, device, link count and owner of a file, as
// os.stat shows them; ok is false where the system does not say.
func FileIDs(fi fs.FileInfo) (ino, dev, nlink, uid, gid uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, 0, 0, false
	}
	return uint64(st.Ino), uint64(st.Dev), uint64(st.Nlink), uint64(st.Uid), uint64(st.Gid), true
}
