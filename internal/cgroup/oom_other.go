//go:build !linux

package cgroup

// WatchOOM is not available on this system: a container engine runs its
// containers in a Linux VM whose cgroups the host does not see.
func WatchOOM(pid int, id string) (*Watch, error) { return nil, ErrUnsupported }
