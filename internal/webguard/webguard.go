// Package webguard decides whom an HTTP server of backyard-ls serves
// besides its token: a Host header must name this machine (a page that
// rebinds a DNS name to 127.0.0.1 cannot) or be listed, and a browser's
// Origin must be a page of this machine or be listed. The MCP server over
// HTTP and the HTTP service use it.
package webguard

import (
	"net"
	"net/url"
	"strings"
)

// Names are the Host or Origin values a server serves besides this
// machine's own.
type Names map[string]bool

// NewNames lists values as given on a command line (case and a trailing
// slash do not matter).
func NewNames(values []string) Names {
	n := Names{}
	for _, v := range values {
		n[strings.ToLower(strings.TrimSuffix(v, "/"))] = true
	}
	return n
}

// Loopback reports whether name names this machine: localhost (and its
// subdomains), a loopback address.
func Loopback(name string) bool {
	name = strings.TrimSuffix(strings.ToLower(strings.Trim(name, "[]")), ".")
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// Host reports whether a Host header (host or host:port) names this
// machine or is listed (with or without its port).
func (n Names) Host(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	return Loopback(name) || n[strings.ToLower(host)] || n[strings.ToLower(name)]
}

// Origin reports whether a browser's Origin is listed or is an http(s)
// page of this machine.
func (n Names) Origin(origin string) bool {
	if n[strings.ToLower(strings.TrimSuffix(origin, "/"))] {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && Loopback(u.Hostname())
}
