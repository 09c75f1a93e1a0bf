// Command httpload drives `backyard-ls http` as an RL trainer does: C
// clients, each posting /run_code requests one after the other over a
// kept-alive connection, N requests in all. It prints one JSON object:
// requests per second, latency percentiles in milliseconds, and the
// answers that were not the expected success (bench/http.py runs it).
//
// Its client writes one prepared request and reads the answer off the
// connection with no more than HTTP/1.1 needs: on a machine of few CPUs
// the client shares them with the server, and net/http's client costs
// about as much CPU as the server it measures.
//
// With -serve ADDR it is the floor instead: a server that reads each
// /run_code request and answers a canned success at once, so that what
// HTTP alone costs on the machine is measured with the same client.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"slices"
	"strconv"
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
	u, err := neturl.Parse(*url)
	if err != nil || u.Scheme != "http" {
		fmt.Fprintln(os.Stderr, "httpload: -url must be an http:// URL")
		os.Exit(2)
	}
	request := fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", u.RequestURI(), u.Host, len(body), body)
	clients := make([]*client, *c)
	for i := range clients {
		clients[i] = &client{addr: u.Host, request: request, want: *stdout}
	}
	run := func(total int, lat []time.Duration) (time.Duration, int64, string) {
		var next, bad atomic.Int64
		var firstBad atomic.Value
		var wg sync.WaitGroup
		start := time.Now()
		for _, cl := range clients {
			wg.Go(func() {
				for {
					i := next.Add(1) - 1
					if i >= int64(total) {
						return
					}
					took, err := cl.post()
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

// client is one kept-alive HTTP/1.1 connection that posts request and
// checks each answer: 200, status Success, stdout want.
type client struct {
	addr    string
	request []byte
	want    string
	conn    net.Conn
	r       *bufio.Reader
	body    []byte
}

func (c *client) post() (time.Duration, error) {
	t := time.Now()
	if c.conn == nil {
		conn, err := net.Dial("tcp", c.addr)
		if err != nil {
			return 0, err
		}
		c.conn, c.r = conn, bufio.NewReaderSize(conn, 16<<10)
	}
	code, keep, err := c.exchange()
	took := time.Since(t)
	if err != nil || !keep {
		c.conn.Close()
		c.conn = nil
	}
	if err != nil {
		return took, err
	}
	var r struct {
		Status    string `json:"status"`
		RunResult *struct {
			Stdout string `json:"stdout"`
		} `json:"run_result"`
	}
	if code != 200 || json.Unmarshal(c.body, &r) != nil || r.Status != "Success" || r.RunResult == nil || r.RunResult.Stdout != c.want {
		return took, fmt.Errorf("HTTP %d: %.300s", code, c.body)
	}
	return took, nil
}

// exchange writes the request and reads the answer's status code and body
// (into c.body); keep is whether the connection may be used again.
func (c *client) exchange() (code int, keep bool, err error) {
	if _, err := c.conn.Write(c.request); err != nil {
		return 0, false, err
	}
	line, err := c.line()
	if err != nil {
		return 0, false, err
	}
	// HTTP/1.1 200 OK
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, false, fmt.Errorf("not an HTTP answer: %q", line)
	}
	if code, err = strconv.Atoi(string(line[9:12])); err != nil {
		return 0, false, fmt.Errorf("not an HTTP answer: %q", line)
	}
	keep = line[7] == '1'
	length, chunked := -1, false
	for {
		h, err := c.line()
		if err != nil {
			return 0, false, err
		}
		if len(h) == 0 {
			break
		}
		name, value, _ := bytes.Cut(h, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return 0, false, fmt.Errorf("bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			keep = keep && !bytes.EqualFold(value, []byte("close"))
		}
	}
	c.body = c.body[:0]
	switch {
	case chunked:
		for {
			h, err := c.line()
			if err != nil {
				return 0, false, err
			}
			size, _, _ := bytes.Cut(h, []byte(";"))
			n, err := strconv.ParseUint(string(bytes.TrimSpace(size)), 16, 31)
			if err != nil {
				return 0, false, fmt.Errorf("bad chunk size %q", h)
			}
			if n == 0 {
				for { // trailers, up to the empty line
					t, err := c.line()
					if err != nil {
						return 0, false, err
					}
					if len(t) == 0 {
						return code, keep, nil
					}
				}
			}
			if err := c.read(int(n)); err != nil {
				return 0, false, err
			}
			if crlf, err := c.line(); err != nil || len(crlf) != 0 {
				return 0, false, errors.New("a chunk does not end with CRLF")
			}
		}
	case length >= 0:
		return code, keep, c.read(length)
	default: // the body ends with the connection
		data, err := io.ReadAll(c.r)
		c.body = append(c.body, data...)
		return code, false, err
	}
}

// line reads a line without its CRLF; it is valid until the next read.
func (c *client) line() ([]byte, error) {
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// read appends n bytes of the body to c.body.
func (c *client) read(n int) error {
	start := len(c.body)
	c.body = slices.Grow(c.body, n)[:start+n]
	_, err := io.ReadFull(c.r, c.body[start:])
	return err
}
