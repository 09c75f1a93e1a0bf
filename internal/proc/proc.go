// Package proc holds what backyard-ls does with processes that differs by
// operating system, behind build tags: child processes that die with the
// server (Linux: a parent-death signal; macOS and other Unix systems: their
// stdin closes with the server, which ends the worker; Windows: a job
// object that kills them when it closes), process groups, whether a
// process is alive and whether this one's parent has died; and the inode
// and owner os.stat shows of a file.
package proc
