package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/uri"
	"go.uber.org/goleak"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
	"github.com/backyard-ls/backyard-ls/monty"
)

// serverBinary is the backyard-ls binary built by TestMain for the
// end-to-end tests and benchmarks.
var serverBinary string

func TestMain(m *testing.M) {
	// The Monty worker is part of the test environment: without it the
	// tests fail, they do not skip.
	if _, err := monty.Find(""); err != nil {
		fmt.Fprintf(os.Stderr, "lsp tests need the Monty worker: %v\n", err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "backyard-ls-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	serverBinary = filepath.Join(dir, "backyard-ls")
	args := []string{"build", "-o", serverBinary}
	if raceBuild {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "github.com/backyard-ls/backyard-ls/cmd/backyard-ls")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building backyard-ls: %v\n", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	// Goroutines must not outlive the tests (in-process servers, kernels);
	// the shared container engine clients are closed first, they keep idle
	// connections by design. An idle keep-alive connection of the engine's
	// HTTP client may be opened again after CloseShared (engineConns).
	goleak.VerifyTestMain(containertest.RunThen(m, func() {
		container.CloseShared()
		os.RemoveAll(dir)
	}), engineConns...)
}

// engineConns ignores an idle keep-alive connection of the shared engine
// client (its two loops): auto may ping the engine, and the client keeps
// the connection by design; it is a connection, not work left running.
var engineConns = []goleak.Option{
	goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
	goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
}

// testLogger logs to stderr when BACKYARD_TEST_LOG is set.
func testLogger() *zap.Logger {
	if os.Getenv("BACKYARD_TEST_LOG") != "" {
		l, _ := zap.NewDevelopment()
		return l
	}
	return zap.NewNop()
}

// testCtx bounds one test; a hung server fails the test instead of
// hanging it. It is a guard, not a performance threshold.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// start runs an in-process server with an initialized client.
func start(t testing.TB, caps lsptest.Capabilities, options any) *lsptest.Client {
	t.Helper()
	return startWith(t, lsp.Options{Logger: testLogger()}, caps, options)
}

func startWith(t testing.TB, opts lsp.Options, caps lsptest.Capabilities, options any) *lsptest.Client {
	t.Helper()
	c := lsptest.Pipe(opts)
	t.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(testCtx(t), caps, options); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

// docDirs holds each test's folder of documents.
var docDirs sync.Map // testing.TB -> string

// docURI is the uri of a document named name in the test's own folder
// (never a shared one such as /tmp: the notebook's folder is its
// workspace, and a container kernel sees it).
func docURI(t testing.TB, name string) string {
	t.Helper()
	dir, ok := docDirs.Load(t)
	if !ok {
		dir, _ = docDirs.LoadOrStore(t, t.TempDir())
		t.Cleanup(func() { docDirs.Delete(t) })
	}
	return string(uri.File(filepath.Join(dir.(string), name)))
}

// open opens a document named name with text and returns its uri.
func open(t testing.TB, c *lsptest.Client, name, text string) string {
	t.Helper()
	uri := docURI(t, name)
	if err := c.Open(testCtx(t), uri, text); err != nil {
		t.Fatal(err)
	}
	return uri
}

// run sends a run command (arg: a contract argument, e.g.
// lsptest.LineArg) and returns its executions.
func run(t testing.TB, c *lsptest.Client, cmd string, arg any) []*contract.Execution {
	t.Helper()
	res, err := c.Run(testCtx(t), cmd, arg)
	if err != nil {
		t.Fatalf("%s %s: %v", cmd, mustJSON(arg), err)
	}
	return res.Executions
}

// await waits for the expectations; on failure the test fails with the
// client's state.
func await(t testing.TB, c *lsptest.Client, exps ...lsptest.Expectation) {
	t.Helper()
	if err := c.Await(testCtx(t), exps...); err != nil {
		t.Fatal(err)
	}
}

// waitDone waits for execution id to be done and returns its final state.
func waitDone(t testing.TB, c *lsptest.Client, id string) *contract.ExecutionStateParams {
	t.Helper()
	await(t, c, lsptest.ExecutionDone(id))
	st := c.ExecutionStates(id)
	return st[len(st)-1]
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
