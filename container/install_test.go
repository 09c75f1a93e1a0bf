package container

import (
	"context"
	"strings"
	"testing"
)

// The installer container never starts for a requirement that is not a
// name (this engine has no client: any call to it would panic).
func TestInstallTakesOnlyNames(t *testing.T) {
	for _, p := range []string{"x @ file:///etc/passwd", "--index-url=http://evil.example", "x\n-r/etc/passwd", "./x"} {
		_, err := (&Engine{}).Install(context.Background(), Config{}, InstallRequest{Requirements: []string{"numpy", p}})
		if err == nil || !strings.Contains(err.Error(), "not a requirement") {
			t.Fatalf("%q: %v", p, err)
		}
	}
}
