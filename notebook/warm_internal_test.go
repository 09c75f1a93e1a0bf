package notebook

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// Opening a document asks the warm pool for its kernels' configuration,
// once the settings have settled and with the backend the document uses.
func TestOpenAsksTheWarmPool(t *testing.T) {
	var mu sync.Mutex
	var asked []kernel.Config
	settled := make(chan struct{})
	done := make(chan struct{}, 2)
	nb := New(Options{
		Config: func(uri string) kernel.Config {
			s := contract.DefaultSettings()
			s.Container.Image = "img-for-" + uri
			return kernel.Config{Settings: s}
		},
		Settle:    func() { <-settled },
		NewKernel: func(kernel.Config) (kernel.Kernel, error) { return nil, errors.New("no kernels here") },
		Warm: func(cfg kernel.Config) {
			mu.Lock()
			asked = append(asked, cfg)
			mu.Unlock()
			done <- struct{}{}
		},
	})
	defer nb.CloseAll()
	nb.Open("file:///a.py", 1, "x = 1\n")
	time.Sleep(10 * time.Millisecond)
	mu.Lock()
	early := len(asked)
	mu.Unlock()
	if early != 0 {
		t.Fatal("asked before the settings settled")
	}
	close(settled)
	<-done
	if asked[0].Settings.Container.Image != "img-for-file:///a.py" || asked[0].Settings.Backend != contract.BackendAuto {
		t.Fatalf("%+v", asked[0].Settings)
	}
}

// A notebook with kernels of its own (tests) warms nothing.
func TestNoWarmPoolWithOtherKernels(t *testing.T) {
	nb := New(Options{Config: func(string) kernel.Config { return kernel.Config{} }, NewKernel: func(kernel.Config) (kernel.Kernel, error) { return nil, errors.New("none") }})
	defer nb.CloseAll()
	if nb.opts.Warm != nil {
		t.Fatal("a warm pool for fake kernels")
	}
}
