package tlsutil

import (
	"testing"
)

// TestHTTPSelf: an agent's own HTTPS client config passes the HTTPS
// listener's verify_https_client (it presents the agent's certificate) and
// accepts the agent's certificate whatever address it is dialed on; an
// agent of another CA is refused; with tls.http off there is none.
func TestHTTPSelf(t *testing.T) {
	p, other := newPKI(t), newPKI(t)
	cfg := p.config(RoleClient, "global")
	cfg.HTTP, cfg.VerifyHTTPSClient = true, true
	srv, err := HTTPServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	self, err := HTTPSelf(cfg)
	if err != nil || self == nil {
		t.Fatalf("HTTPSelf: %v %v", self, err)
	}
	self.ServerName = "10.9.8.7" // an advertised address the certificate does not name
	if srvErr, cliErr := handshake(t, srv, self); srvErr != nil || cliErr != nil {
		t.Fatalf("own HTTPS: server %v, client %v", srvErr, cliErr)
	}
	foreign := other.config(RoleClient, "global")
	foreign.HTTP = true
	foreignSrv, _ := HTTPServer(foreign)
	if _, cliErr := handshake(t, foreignSrv, self); cliErr == nil {
		t.Fatal("an agent certificate of another CA was accepted")
	}
	cfg.HTTP = false
	if c, err := HTTPSelf(cfg); c != nil || err != nil {
		t.Fatalf("http off: %v %v", c, err)
	}
}
