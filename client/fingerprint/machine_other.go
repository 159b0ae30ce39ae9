//go:build !linux

package fingerprint

// machine is unknown off Linux.
func machine(cfg *Config) string { return "" }
