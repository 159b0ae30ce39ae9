package rpcserver

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDepsRPCServer keeps the transport apart from what it carries: its
// production code imports the wire libraries (msgpack, net/rpc codec,
// yamux), the logger, rpcclient (the protocol bytes and the peer pool),
// the TLS and connection-limit helpers and structs, nothing of the server
// (no state, raft, endpoints or node tunnels: those come in through
// Config).
func TestDepsRPCServer(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := map[string]bool{
		"github.com/hashicorp/go-hclog":                   true,
		"github.com/hashicorp/go-msgpack/v2/codec":        true,
		"github.com/hashicorp/net-rpc-msgpackrpc/v2":      true,
		"github.com/hashicorp/yamux":                      true,
		"github.com/nomadish/nomadish/internal/connlimit": true,
		"github.com/nomadish/nomadish/internal/tlsutil":   true,
		"github.com/nomadish/nomadish/rpcclient":          true,
		"github.com/nomadish/nomadish/structs":            true,
	}
	imports := strings.Fields(string(out))
	if len(imports) == 0 {
		t.Fatal("go list gave no imports")
	}
	for _, p := range imports {
		if !allowed[p] && strings.Contains(strings.SplitN(p, "/", 2)[0], ".") {
			t.Errorf("server/rpcserver imports %s: only the standard library, the wire libraries, go-hclog, rpcclient, internal/connlimit, internal/tlsutil and structs are allowed", p)
		}
	}
}
