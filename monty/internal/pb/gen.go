// Package pb holds the Go types generated from monty.proto, the wire schema
// of the Monty worker (protocol version 5).
package pb

//go:generate protoc --go_out=. --go_opt=paths=source_relative monty.proto
