package tlsutil

import (
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// pki writes a CA and certificates for the given roles/regions into a temp
// dir and returns a Config per name.
type pki struct {
	t   *testing.T
	dir string
	ca  *PEMPair
}

func newPKI(t *testing.T) *pki {
	ca, err := GenerateCA("", 0)
	if err != nil {
		t.Fatal(err)
	}
	p := &pki{t: t, dir: t.TempDir(), ca: ca}
	p.write("ca.pem", ca.Cert)
	return p
}

func (p *pki) write(name string, b []byte) string {
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		p.t.Fatal(err)
	}
	return path
}

// config makes a cert for role in region and returns an RPC tls Config
// using it (verify_server_hostname on).
func (p *pki) config(role Role, region string) *Config {
	pair, err := GenerateCert(CertRequest{Role: role, Region: region, CA: p.ca})
	if err != nil {
		p.t.Fatal(err)
	}
	name := string(role) + "-" + region
	return &Config{RPC: true, CAFile: filepath.Join(p.dir, "ca.pem"),
		CertFile: p.write(name+".pem", pair.Cert), KeyFile: p.write(name+"-key.pem", pair.Key),
		VerifyServerHostname: true}
}

func TestGenerateCertNames(t *testing.T) {
	p := newPKI(t)
	pair, err := GenerateCert(CertRequest{Role: RoleServer, CA: p.ca, DNS: []string{"nomad.example"},
		IPs: []net.IP{net.ParseIP("10.0.0.7")}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pem.Decode(pair.Cert)
	cert, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"server.global.nomad", "localhost", "127.0.0.1", "nomad.example", "10.0.0.7"} {
		if err := cert.VerifyHostname(h); err != nil {
			t.Errorf("cert not valid for %s: %v", h, err)
		}
	}
	if err := cert.VerifyHostname("client.global.nomad"); err == nil {
		t.Error("a server cert is valid for client.global.nomad")
	}
	pool, _ := LoadCAPool(filepath.Join(p.dir, "ca.pem"))
	if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("cert does not chain to the CA for client auth: %v", err)
	}
	if _, ok := cert.PublicKey.(*ecdsa.PublicKey); !ok {
		t.Errorf("public key is %T, want ECDSA", cert.PublicKey)
	}
}

// handshake runs one TLS handshake between a listener using srv and a
// dialer using cli, returning the server-side and client-side errors.
func handshake(t *testing.T, srv, cli *tls.Config) (srvErr, cliErr error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		tc := tls.Server(c, srv)
		err = tc.Handshake()
		if err == nil {
			// TLS 1.3: the client's certificate is checked after the
			// client's handshake returns; confirm with one byte.
			_, err = tc.Write([]byte{1})
		}
		done <- err
	}()
	c, err := tls.Dial("tcp", ln.Addr().String(), cli)
	if err == nil {
		var b [1]byte
		_, err = c.Read(b[:])
		c.Close()
	}
	return <-done, err
}

func TestRPCMutualTLS(t *testing.T) {
	p := newPKI(t)
	srv, err := NewRPC(p.config(RoleServer, "global"), "global")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		role   Role
		region string
		ok     bool
	}{
		{"client of the region", RoleClient, "global", true},
		{"server of the region", RoleServer, "global", true},
		{"client of another region", RoleClient, "other", false},
		{"cli cert", RoleCLI, "global", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cli, err := NewRPC(p.config(tc.role, tc.region), "global")
			if err != nil {
				t.Fatal(err)
			}
			srvErr, cliErr := handshake(t, srv.Incoming, cli.Outgoing)
			if tc.ok && (srvErr != nil || cliErr != nil) {
				t.Fatalf("refused: server %v, client %v", srvErr, cliErr)
			}
			if !tc.ok && srvErr == nil {
				t.Fatal("server accepted the peer")
			}
			if !tc.ok && !errors.Is(srvErr, ErrPeerName) {
				t.Fatalf("server error = %v, want ErrPeerName", srvErr)
			}
		})
	}
}

func TestRPCRefusesNoClientCert(t *testing.T) {
	p := newPKI(t)
	srv, _ := NewRPC(p.config(RoleServer, "global"), "global")
	pool, _ := LoadCAPool(filepath.Join(p.dir, "ca.pem"))
	srvErr, _ := handshake(t, srv.Incoming, &tls.Config{RootCAs: pool, ServerName: "server.global.nomad"})
	if srvErr == nil {
		t.Fatal("server accepted a client without a certificate")
	}
}

func TestVerifyServerHostnameRefusesClientCertAsServer(t *testing.T) {
	p := newPKI(t)
	// A "server" holding a client certificate, or a server cert of
	// another region: the dialer must refuse it.
	for _, c := range []*Config{p.config(RoleClient, "global"), p.config(RoleServer, "other")} {
		fake, _ := NewRPC(c, "global")
		fake.Incoming.VerifyConnection = nil
		cli, _ := NewRPC(p.config(RoleClient, "global"), "global")
		_, cliErr := handshake(t, fake.Incoming, cli.Outgoing)
		var he x509.HostnameError
		if !errors.As(cliErr, &he) {
			t.Fatalf("dialer error = %v, want a hostname error", cliErr)
		}
	}
	// Without verify_server_hostname the chain alone is checked.
	fake, _ := NewRPC(p.config(RoleClient, "global"), "global")
	fake.Incoming.VerifyConnection = nil
	lax := p.config(RoleClient, "global")
	lax.VerifyServerHostname = false
	cli, _ := NewRPC(lax, "global")
	if srvErr, cliErr := handshake(t, fake.Incoming, cli.Outgoing); srvErr != nil || cliErr != nil {
		t.Fatalf("without verify_server_hostname: server %v, client %v", srvErr, cliErr)
	}
}

func TestRPCRefusesForeignCA(t *testing.T) {
	p, other := newPKI(t), newPKI(t)
	srv, _ := NewRPC(p.config(RoleServer, "global"), "global")
	cli, _ := NewRPC(other.config(RoleClient, "global"), "global")
	if srvErr, cliErr := handshake(t, srv.Incoming, cli.Outgoing); srvErr == nil && cliErr == nil {
		t.Fatal("a certificate from another CA was accepted")
	}
}

func TestNewRPCMissingFiles(t *testing.T) {
	if _, err := NewRPC(&Config{RPC: true}, "global"); !errors.Is(err, ErrMissingFile) {
		t.Fatalf("err = %v, want ErrMissingFile", err)
	}
	if r, err := NewRPC(&Config{HTTP: true}, "global"); r != nil || err != nil {
		t.Fatalf("rpc off: got %v, %v", r, err)
	}
}
