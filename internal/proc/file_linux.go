package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// pseudoFS reports whether f lies on a file system of the kernel's own
// pseudo-files (procfs, sysfs and their kin), wherever it is mounted.
func pseudoFS(f *os.File) bool {
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		return true
	}
	switch st.Type {
	case unix.PROC_SUPER_MAGIC, unix.SYSFS_MAGIC, unix.DEBUGFS_MAGIC, unix.TRACEFS_MAGIC, unix.SECURITYFS_MAGIC,
		unix.CGROUP_SUPER_MAGIC, unix.CGROUP2_SUPER_MAGIC, unix.BPF_FS_MAGIC, unix.DEVPTS_SUPER_MAGIC, unix.EFIVARFS_MAGIC:
		return true
	}
	return false
}
