//go:build race

package lsp_test

// raceBuild: the tests run under the race detector, so the server binary
// they start is built with it too.
const raceBuild = true
