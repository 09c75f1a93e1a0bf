package lsptest

import "github.com/backyard-ls/backyard-ls/internal/proc"

// Children lists the live (not zombie) child processes of pid: what a
// server still runs, e.g. its kernels' workers (Linux; nil elsewhere).
func Children(pid int) []int { return proc.Children(pid) }
