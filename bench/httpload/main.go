// Command httpload drives `backyard-ls http` as an RL trainer does: C
// clients, each posting /run_code requests one after the other over a
// kept-alive connection, N requests in all. It prints one JSON object:
// requests per second, latency percentiles in milliseconds, and the
// answers that were not the expected success (bench/http.py runs it).
//
// With -serve ADDR it is the floor instead: a server that reads each
// /run_code request and answers a canned success at once, so that what
// HTTP alone costs on the machine is measured with the same client.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8080/run_code", "the /run_code URL")
	n := flag.Int("n", 10000, "requests in all")
	c := flag.Int("c", 16, "concurrent clients")
	code := flag.String("code", "print(6 * 7)", "the program of every request")
	stdout := flag.String("stdout", "42\n", "the stdout every answer must have")
	warm := flag.Int("warmup", 100, "requests sent first, not measured")
	serve := flag.String("serve", "", "serve the floor on this address instead")
	flag.Parse()
	if *serve != "" {
		floor(*serve, *stdout)
		return
	}
	body, _ := json.Marshal(map[string]any{"code": *code, "language": "python", "run_timeout": 30})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *c, MaxConnsPerHost: *c}}
	post := func() (time.Duration, error) {
		t := time.Now()
		resp, err := client.Post(*url, "application/json", bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(t)
		if err != nil {
			return 0, err
		}
		var r struct {
			Status    string `json:"status"`
			RunResult *struct {
				Stdout string `json:"stdout"`
			} `json:"run_result"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(data, &r) != nil || r.Status != "Success" || r.RunResult == nil || r.RunResult.Stdout != *stdout {
			return took, fmt.Errorf("HTTP %d: %.300s", resp.StatusCode, data)
		}
		return took, nil
	}
	run := func(total int, lat []time.Duration) (time.Duration, int64, string) {
		var next, bad atomic.Int64
		var firstBad atomic.Value
		var wg sync.WaitGroup
		start := time.Now()
		for range *c {
			wg.Go(func() {
				for {
					i := next.Add(1) - 1
					if i >= int64(total) {
						return
					}
					took, err := post()
					if lat != nil {
						lat[i] = took
					}
					if err != nil {
						bad.Add(1)
						firstBad.CompareAndSwap(nil, err.Error())
					}
				}
			})
		}
		wg.Wait()
		why, _ := firstBad.Load().(string)
		return time.Since(start), bad.Load(), why
	}
	run(*warm, nil)
	lat := make([]time.Duration, *n)
	wall, bad, why := run(*n, lat)
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	out, _ := json.Marshal(map[string]any{
		"rate": float64(*n) / wall.Seconds(), "p50_ms": pct(0.50), "p90_ms": pct(0.90), "p99_ms": pct(0.99), "max_ms": pct(1),
		"bad": bad, "first_bad": why,
	})
	fmt.Println(string(out))
	if bad > 0 {
		os.Exit(1)
	}
}

// floor answers every /run_code with a canned success whose stdout is
// stdout, after reading and decoding the request as a server must.
func floor(addr, stdout string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "serving on http://%s\n", ln.Addr())
	err = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Code string `json:"code"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		took := 0.0001
		out, _ := json.Marshal(map[string]any{"status": "Success", "message": "", "compile_result": nil, "executor_pod_name": nil, "files": map[string]string{},
			"run_result": map[string]any{"status": "Finished", "execution_time": took, "return_code": 0, "stdout": stdout, "stderr": ""}})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	}))
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
