package config

import "os"

// validateTLS checks the tls block: enabling http or rpc needs ca_file,
// cert_file and key_file, and each named file must be readable.
func (c *Config) validateTLS(bad func(key, format string, args ...any)) {
	t := c.TLS
	if !t.HTTP && !t.RPC {
		return
	}
	for key, path := range map[string]string{"tls.ca_file": t.CAFile, "tls.cert_file": t.CertFile, "tls.key_file": t.KeyFile} {
		if path == "" {
			bad(key, "required when tls.http or tls.rpc is true")
			continue
		}
		if _, err := os.Stat(path); err != nil {
			bad(key, "%v", err)
		}
	}
}
