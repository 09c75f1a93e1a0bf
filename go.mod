module github.com/backyard-ls/backyard-ls

go 1.26.8

require (
	go.uber.org/zap v1.28.0
	google.golang.org/protobuf v1.36.12
)

require go.uber.org/multierr v1.10.0 // indirect
