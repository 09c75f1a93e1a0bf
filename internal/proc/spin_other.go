//go:build !unix

package proc

import (
	"io"
	"os"
	"time"
)

// SpinReader is f itself here: its reads block as they always do.
func SpinReader(f *os.File, _ time.Duration) io.Reader { return f }
