package rpcclient_test

import (
	"context"
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/internal/tlsutil"
	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/server"
	"github.com/nomadish/nomadish/structs"
)

// tlsFiles writes a CA and a cert for role in region; it returns the tls
// block using them.
func tlsFiles(t testing.TB, dir string, ca *tlsutil.PEMPair, role tlsutil.Role, region string) *tlsutil.Config {
	t.Helper()
	pair, err := tlsutil.GenerateCert(tlsutil.CertRequest{Role: role, Region: region, CA: ca})
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := string(role) + "-" + region
	return &tlsutil.Config{RPC: true, VerifyServerHostname: true, CAFile: write("ca.pem", ca.Cert),
		CertFile: write(base+".pem", pair.Cert), KeyFile: write(base+"-key.pem", pair.Key)}
}

func TestServerRPCOverMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca, err := tlsutil.GenerateCA("", 0)
	if err != nil {
		t.Fatal(err)
	}
	srvTLS, err := tlsutil.NewRPC(tlsFiles(t, dir, ca, tlsutil.RoleServer, "global"), "global")
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.NewServer(&server.Config{DevMode: true, RPCAddr: "127.0.0.1:0", NumSchedulers: 1,
		Logger: hclog.NewNullLogger(), TLS: srvTLS})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.WaitForLeader(ctx); err != nil {
		t.Fatal(err)
	}

	call := func(c *rpcclient.Client) error {
		defer c.Close()
		var leader string
		return c.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader)
	}
	good, _ := tlsutil.NewRPC(tlsFiles(t, dir, ca, tlsutil.RoleClient, "global"), "global")
	if err := call(rpcclient.New([]string{s.RPCAddr()}, nil, rpcclient.WithTLS(good.Outgoing))); err != nil {
		t.Fatalf("client with a global client cert: %v", err)
	}
	if err := call(rpcclient.New([]string{s.RPCAddr()}, nil)); err == nil {
		t.Fatal("a plaintext client was served by a TLS server")
	}
	other, _ := tlsutil.NewRPC(tlsFiles(t, dir, ca, tlsutil.RoleClient, "other"), "global")
	err = call(rpcclient.New([]string{s.RPCAddr()}, nil, rpcclient.WithTLS(other.Outgoing)))
	if err == nil {
		t.Fatal("a client with a cert for region other was served")
	}
	// The caller learns why (TLS 1.3 reports the refusal on the first read).
	if !strings.Contains(err.Error(), "tls: bad certificate") {
		t.Errorf("refusal does not say why: %v", err)
	}
}

// BenchmarkServerCall measures Status.Leader against a real server over
// the pool, in plaintext and inside mutual TLS.
func BenchmarkServerCall(b *testing.B) {
	dir := b.TempDir()
	ca, err := tlsutil.GenerateCA("", 0)
	if err != nil {
		b.Fatal(err)
	}
	srvTLS, _ := tlsutil.NewRPC(tlsFiles(b, dir, ca, tlsutil.RoleServer, "global"), "global")
	cliTLS, _ := tlsutil.NewRPC(tlsFiles(b, dir, ca, tlsutil.RoleClient, "global"), "global")
	for _, bc := range []struct {
		name string
		cli  *tls.Config
		tls  *tlsutil.RPC
	}{{name: "plain"}, {name: "tls", tls: srvTLS, cli: cliTLS.Outgoing}} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := server.NewServer(&server.Config{DevMode: true, RPCAddr: "127.0.0.1:0", NumSchedulers: 1,
				Logger: hclog.NewNullLogger(), TLS: bc.tls})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := s.WaitForLeader(ctx); err != nil {
				b.Fatal(err)
			}
			c := rpcclient.New([]string{s.RPCAddr()}, nil, rpcclient.WithTLS(bc.cli))
			defer c.Close()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					var leader string
					if err := c.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
