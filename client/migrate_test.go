package client

import (
	"context"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// TestMigrateTokenKept: the client keeps the migrate tokens of the last
// Node.GetClientAllocs answer, by replacement alloc ID.
func TestMigrateTokenKept(t *testing.T) {
	c := &Client{allocIdx: map[string]uint64{}}
	if err := c.syncAllocs(&structs.NodeClientAllocsResponse{MigrateTokens: map[string]string{"new": "tok"}}); err != nil {
		t.Fatal(err)
	}
	if got := c.migrateToken("new"); got != "tok" {
		t.Fatalf("token %q", got)
	}
	if err := c.syncAllocs(&structs.NodeClientAllocsResponse{}); err != nil {
		t.Fatal(err)
	}
	if got := c.migrateToken("new"); got != "" {
		t.Fatalf("token %q kept after the servers dropped it", got)
	}
}

// TestGetSnapshotTLSAndToken: the snapshot download speaks HTTPS with
// Config.HTTPTLS and sends the migrate token as X-Nomad-Token; plain HTTP
// without HTTPTLS, and no header without a token.
func TestGetSnapshotTLSAndToken(t *testing.T) {
	var gotPath, gotToken string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotToken = r.URL.Path, r.Header.Get("X-Nomad-Token")
	})
	tlsSrv := httptest.NewTLSServer(h)
	defer tlsSrv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(tlsSrv.Certificate())
	cfg := tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	cfg.RootCAs = pool
	c := &Client{cfg: Config{HTTPAddr: strings.TrimPrefix(tlsSrv.URL, "https://"), HTTPTLS: cfg}}
	resp, err := c.getSnapshot(context.Background(), "prev", "mig-token")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if gotPath != "/v1/client/allocation/prev/snapshot" || gotToken != "mig-token" {
		t.Fatalf("path %q token %q", gotPath, gotToken)
	}

	plain := httptest.NewServer(h)
	defer plain.Close()
	c = &Client{cfg: Config{HTTPAddr: strings.TrimPrefix(plain.URL, "http://")}}
	resp, err = c.getSnapshot(context.Background(), "prev", "")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if gotToken != "" {
		t.Fatalf("token %q sent without one", gotToken)
	}
}
