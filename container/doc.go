// Package container runs notebook kernels in full CPython inside a
// container: Docker (20.10 and later), Podman's Docker-compatible socket or a
// remote engine (DOCKER_HOST), with gVisor's runsc runtime when the engine
// has it. It knows nothing of documents or of the kernel package; the
// kernel package builds its container backend on it.
//
// A kernel is one long-lived container (Engine.Start returns its Session)
// running the embedded driver, a stdlib-only Python program (driver.py,
// Python >= 3.8) passed as `python3 -c SOURCE`, so any image with python3
// works and nothing is written to its read-only filesystem. The driver keeps
// the namespace between cells and speaks frames over the attach stream: a
// 4-byte big-endian length and UTF-8 JSON, requests on stdin, events on
// stdout; the container's stderr carries only the driver's own fatal
// errors. It runs cells with IPython's rules (the value of a trailing
// expression unless the cell ends in `;`, MIME bundles, matplotlib figures
// as PNG), batches output (each write is expensive under gVisor), and turns
// SIGINT into KeyboardInterrupt.
//
// Containers are hardened by default (see Config): no network, read-only
// root filesystem with a tmpfs /tmp, all capabilities dropped,
// no-new-privileges, user nobody, pids/memory/CPU limits, the workspace
// mounted read-only when asked. They carry labels naming the owning process
// (Label*), so that ReapOrphans can remove those of a server that died, and
// Shutdown those of this one when it exits.
package container
