package monty

import (
	"maps"
)

// Setenv sets an environment variable of the worker's sessions
// (os.environ, os.getenv), as os.environ[key] = value does in CPython.
// Call it from a host function or between feeds: the feed loop reads the
// environment.
func (w *Worker) Setenv(key, value string) {
	env := maps.Clone(w.host.env) // Config.Env may be shared
	if env == nil {
		env = map[string]string{}
	}
	env[key] = value
	w.host.env = env
}

// Environ is a copy of the environment of the worker's sessions.
func (w *Worker) Environ() map[string]string { return maps.Clone(w.host.env) }
