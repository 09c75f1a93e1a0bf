// Package containerkernel is the container backend: a kernel.Kernel that
// runs cells in full CPython inside a long-lived, hardened container (Docker
// or Podman; gVisor's runsc when the engine has it), with packages installed
// on demand into a volume the kernel reads.
package containerkernel
