package notebook

import (
	"context"
	"fmt"
	"time"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/pypkg"
)

// A document also runs code that is not in its text (RunCode): the MCP
// server's sessions are documents without text. Such a run is queued like a
// cell, reported like one (range zero, lines 1-based from document line
// 0), and shows no result in the document.

func (d *Document) codeExecutions(req RunRequest) []*execution {
	if req.Code == "" {
		return nil
	}
	e := d.newExecution(&batch{})
	e.code, e.limits, e.untracked = req.Code, req.Limits, true
	return []*execution{e}
}

// installTimeout bounds an Install.
const installTimeout = 15 * time.Minute

// Install installs packages for the document's kernel once the runs queued
// before it are done (see kernel.Installer): its container mounts them,
// also one the document moves to later. A kernel that cannot install
// packages (Monty) is an error.
func (d *Document) Install(packages []string) (contract.Reply[[]string], error) {
	if err := pypkg.CheckRequirements(packages); err != nil {
		return nil, err
	}
	return control(d.sess, func(s *session) ([]string, error) {
		k, _, err := s.kernel()
		if err != nil {
			return nil, err
		}
		in, ok := k.(kernel.Installer)
		if !ok {
			return nil, fmt.Errorf("the %s backend cannot install packages", BackendTitle(k.Info().Backend))
		}
		ctx, cancel := context.WithTimeout(s.nb.life, installTimeout)
		defer cancel()
		if err := in.Install(ctx, packages); err != nil {
			return nil, err
		}
		return packages, nil
	})
}
