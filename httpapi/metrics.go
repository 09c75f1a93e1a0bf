package httpapi

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the service's Prometheus metrics (README, "HTTP service").
type metrics struct {
	requests *prometheus.CounterVec   // by endpoint and HTTP status code
	runs     *prometheus.CounterVec   // by endpoint, backend and status
	errors   *prometheus.CounterVec   // runs answered SandboxError, by endpoint and backend
	latency  *prometheus.HistogramVec // seconds from arrival to answer, by endpoint and backend
	running  prometheus.Gauge
	queued   prometheus.Gauge
	sessions prometheus.Gauge

	// The series already used, by their labels: finding one in a vec
	// hashes its labels, which every request would otherwise pay.
	requestSeries seriesCache[requestLabels, prometheus.Counter]
	runSeries     seriesCache[[3]string, prometheus.Counter]
	errorSeries   seriesCache[[2]string, prometheus.Counter]
	latencySeries seriesCache[[2]string, prometheus.Observer]
}

type requestLabels struct {
	endpoint string
	code     int
}

// seriesCache holds the series of a vec by their labels.
type seriesCache[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]V
}

// get is the series of labels k, made by find the first time.
func (c *seriesCache[K, V]) get(k K, find func() V) V {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = find()
	c.mu.Lock()
	if c.m == nil {
		c.m = map[K]V{}
	}
	c.m[k] = v
	c.mu.Unlock()
	return v
}

// request counts a request's answer by endpoint and HTTP status code.
func (m *metrics) request(endpoint string, code int) {
	m.requestSeries.get(requestLabels{endpoint, code}, func() prometheus.Counter {
		return m.requests.WithLabelValues(endpoint, strconv.Itoa(code))
	}).Inc()
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "backyard_http_requests_total", Help: "Requests answered, by endpoint and HTTP status code.",
		}, []string{"endpoint", "code"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "backyard_runs_total", Help: "Runs of code (a /run_code program, a /run_jupyter cell, a session run), by endpoint, backend (monty, container) and status (ok, error, timeout, interrupted, crashed).",
		}, []string{"endpoint", "backend", "status"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "backyard_run_errors_total", Help: "Runs the server could not carry out (answered SandboxError or 500), by endpoint and backend.",
		}, []string{"endpoint", "backend"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "backyard_run_duration_seconds", Help: "Time from a run request's arrival to its answer (queue included), by endpoint and the backend that ran it.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2.5, 16), // 100 µs to about 1.5 h
		}, []string{"endpoint", "backend"}),
		running: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "backyard_runs_in_progress", Help: "Run requests holding one of the --max-running slots.",
		}),
		queued: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "backyard_queue_depth", Help: "Run requests waiting for a slot (at most --max-queued).",
		}),
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "backyard_sessions_open", Help: "Stateful sessions open.",
		}),
	}
	reg.MustRegister(m.requests, m.runs, m.errors, m.latency, m.running, m.queued, m.sessions,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// ran records one run.
func (m *metrics) ran(endpoint, backend, status string) {
	if backend == "" {
		backend = "none"
	}
	m.runSeries.get([3]string{endpoint, backend, status}, func() prometheus.Counter {
		return m.runs.WithLabelValues(endpoint, backend, status)
	}).Inc()
}

// answered records a run request's time and, when the server could not
// carry it out, an error.
func (m *metrics) answered(endpoint, backend string, since time.Time, failed bool) {
	if backend == "" {
		backend = "none"
	}
	labels := [2]string{endpoint, backend}
	m.latencySeries.get(labels, func() prometheus.Observer { return m.latency.WithLabelValues(endpoint, backend) }).Observe(time.Since(since).Seconds())
	if failed {
		m.errorSeries.get(labels, func() prometheus.Counter { return m.errors.WithLabelValues(endpoint, backend) }).Inc()
	}
}
