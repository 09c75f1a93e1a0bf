package main

import (
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// newLogger logs to path, or to stderr when path is empty: stdout carries
// LSP frames or the notebook output.
func newLogger(path, level string) (*zap.Logger, error) {
	cfg := zap.NewProductionConfig()
	cfg.Encoding = "console"
	cfg.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
	cfg.DisableStacktrace = true
	cfg.Sampling = nil
	cfg.OutputPaths = []string{"stderr"}
	cfg.ErrorOutputPaths = []string{"stderr"}
	if path != "" {
		cfg.OutputPaths = []string{path}
	}
	lvl := zapcore.WarnLevel
	if level != "" {
		if err := lvl.Set(level); err != nil {
			return nil, err
		}
	}
	cfg.Level = zap.NewAtomicLevelAt(lvl)
	return cfg.Build()
}
