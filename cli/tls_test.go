package cli

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

func TestTLSCACertCreateAndHTTPS(t *testing.T) {
	t.Chdir(t.TempDir())
	if code, _, stderr := runCLI(nil, "tls", "ca", "create"); code != 0 {
		t.Fatalf("tls ca create: %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(nil, "tls", "cert", "create", "-server", "-additional-dnsname", "nomad.example"); code != 0 {
		t.Fatalf("tls cert create -server: %d %s", code, stderr)
	}
	if code, _, _ := runCLI(nil, "tls", "cert", "create", "-server", "-client"); code == 0 {
		t.Fatal("two roles accepted")
	}
	if code, _, stderr := runCLI(nil, "tls", "cert", "create", "-cli"); code != 0 {
		t.Fatalf("tls cert create -cli: %d %s", code, stderr)
	}
	if code, _, _ := runCLI(nil, "tls", "ca", "create"); code == 0 {
		t.Fatal("tls ca create overwrote the existing CA")
	}
	raw, err := os.ReadFile("global-server-nomad.pem")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pem.Decode(raw)
	cert, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"server.global.nomad", "localhost", "127.0.0.1", "nomad.example"} {
		if cert.VerifyHostname(h) != nil {
			t.Errorf("server cert not valid for %s", h)
		}
	}
	if fi, err := os.Stat("global-server-nomad-key.pem"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v %v", fi, err)
	}

	// An HTTPS agent requiring client certs: the CLI works with
	// -ca-cert/-client-cert/-client-key (or NOMAD_* env), not without.
	pair, err := tls.LoadX509KeyPair("global-server-nomad.pem", "global-server-nomad-key.pem")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("[]"))
	}))
	srvCfg, _ := clientCertServer("nomad-agent-ca.pem", pair)
	srv.TLS = srvCfg
	srv.StartTLS()
	defer srv.Close()
	addr := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	if code, _, stderr := runCLI(nil, "status", "-address", addr, "-ca-cert", "nomad-agent-ca.pem",
		"-client-cert", "global-cli-nomad.pem", "-client-key", "global-cli-nomad-key.pem"); code != 0 {
		t.Fatalf("status over HTTPS with flags: %d %s", code, stderr)
	}
	env := map[string]string{"NOMAD_ADDR": addr, "NOMAD_CACERT": "nomad-agent-ca.pem",
		"NOMAD_CLIENT_CERT": "global-cli-nomad.pem", "NOMAD_CLIENT_KEY": "global-cli-nomad-key.pem"}
	if code, _, stderr := runCLI(env, "status"); code != 0 {
		t.Fatalf("status over HTTPS with env: %d %s", code, stderr)
	}
	if code, _, _ := runCLI(nil, "status", "-address", addr, "-ca-cert", "nomad-agent-ca.pem"); code == 0 {
		t.Fatal("status without a client certificate succeeded")
	}
	if code, _, _ := runCLI(nil, "status", "-address", addr); code == 0 {
		t.Fatal("status without the CA succeeded")
	}
}

// clientCertServer is an HTTPS config requiring client certs from caFile.
func clientCertServer(caFile string, cert tls.Certificate) (*tls.Config, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert}, nil
}
