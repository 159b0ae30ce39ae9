package rpcserver

import (
	"testing"

	"github.com/nomadish/nomadish/internal/depstest"
)

// TestDepsRPCServer keeps the transport apart from what it carries: its
// production code imports the wire libraries (msgpack, net/rpc codec,
// yamux), the logger, rpcclient (the protocol bytes and the peer pool),
// the TLS, connection-limit and goroutine-pool helpers and structs, nothing of the server
// (no state, raft, endpoints or node tunnels: those come in through
// Config).
func TestDepsRPCServer(t *testing.T) {
	depstest.OnlyImports(t, ".", "github.com/hashicorp/go-hclog", "github.com/hashicorp/go-metrics", "github.com/hashicorp/go-msgpack/v2/codec",
		"github.com/hashicorp/net-rpc-msgpackrpc/v2", "github.com/hashicorp/yamux",
		"github.com/nomadish/nomadish/internal/connlimit", "github.com/nomadish/nomadish/internal/gopool", "github.com/nomadish/nomadish/internal/tlsutil",
		"github.com/nomadish/nomadish/rpcclient", "github.com/nomadish/nomadish/structs")
}
