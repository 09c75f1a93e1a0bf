package lsp

// SetTestHook installs a function run before each message is handled (to
// inject panics); it returns a function that removes it. Not safe to call
// while a server is handling messages.
func SetTestHook(f func(method string)) (restore func()) {
	old := testHook
	testHook = f
	return func() { testHook = old }
}
