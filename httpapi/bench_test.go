package httpapi

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
)

// BenchmarkRunCode posts trivial /run_code requests from 16 clients at
// once over kept-alive connections, as an RL trainer does, to a server on
// Monty: the cost of a request through the HTTP layer and the batch.
func BenchmarkRunCode(b *testing.B) {
	s := newServer(b, Options{Settings: settings(contract.BackendMonty)})
	hs := httptest.NewServer(s.Handler())
	b.Cleanup(hs.Close)
	body := []byte(`{"code": "print(6 * 7)", "language": "python"}`)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	b.SetParallelism(8) // 16 clients on 2 CPUs
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Post(hs.URL+"/run_code", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(data), `"Success"`) {
				b.Errorf("%s", data)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}

// BenchmarkRunCodeHandler serves trivial /run_code requests from 16
// goroutines straight to the handler (no connections): what the service
// adds to a run, in time and allocations, apart from HTTP's own parsing
// and writing.
func BenchmarkRunCodeHandler(b *testing.B) {
	s := newServer(b, Options{Settings: settings(contract.BackendMonty)})
	h := s.Handler()
	body := []byte(`{"code": "print(6 * 7)", "language": "python"}`)
	b.SetParallelism(8) // 16 clients on 2 CPUs
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r := httptest.NewRequest("POST", "/run_code", bytes.NewReader(body))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"Success"`) {
				b.Errorf("%d %s", w.Code, w.Body)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}
