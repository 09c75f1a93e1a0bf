//go:build !race

package lsp_test

const raceBuild = false
