package webguard

import "testing"

func TestNames(t *testing.T) {
	n := NewNames([]string{"Proxy.Example", "https://app.example/"})
	for host, want := range map[string]bool{
		"localhost": true, "localhost:8080": true, "127.0.0.1:80": true, "[::1]:8080": true, "api.localhost": true,
		"proxy.example": true, "proxy.example:443": true, "evil.example": false, "127.0.0.1.evil.example": false, "": false,
	} {
		if n.Host(host) != want {
			t.Errorf("Host(%q) = %v", host, !want)
		}
	}
	for origin, want := range map[string]bool{
		"http://localhost:3000": true, "https://127.0.0.1": true, "https://app.example": true, "HTTPS://APP.EXAMPLE/": true,
		"http://evil.example": false, "file://localhost": false, "null": false,
	} {
		if n.Origin(origin) != want {
			t.Errorf("Origin(%q) = %v", origin, !want)
		}
	}
}
