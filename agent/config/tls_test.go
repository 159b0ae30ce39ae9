package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTLSBlock(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "a.hcl")
	src := "tls {\n  http = true\n  rpc = true\n  ca_file = \"" + ca + "\"\n  verify_server_hostname = true\n  verify_https_client = true\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig().Merge(f)
	if !c.TLS.HTTP || !c.TLS.RPC || c.TLS.CAFile != ca || !c.TLS.VerifyServerHostname || !c.TLS.VerifyHTTPSClient {
		t.Fatalf("tls block: %+v", c.TLS)
	}
	err = c.Validate()
	if err == nil {
		t.Fatal("missing cert_file and key_file accepted")
	}
	for _, want := range []string{"tls.cert_file: required", "tls.key_file: required"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("validation %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "tls.ca_file") {
		t.Errorf("ca_file exists but was reported: %v", err)
	}
}
