package endpoints

import (
	"testing"

	"github.com/nomadish/nomadish/internal/depstest"
)

// TestDepsEndpoints keeps the endpoints off the server's machinery: their
// production code reaches the server only through Deps, so it imports no
// server root package, raft, serf, agent, client or testing (structs'
// msgpack codec, which ships an RPC codec, is not descended into).
func TestDepsEndpoints(t *testing.T) {
	const mod = "github.com/nomadish/nomadish/"
	depstest.Forbid(t, ".", []string{"github.com/hashicorp/go-msgpack/v2/codec"},
		depstest.Exactly(mod+"server"), depstest.Under(mod+"agent"), depstest.Under(mod+"client"),
		depstest.Under("github.com/hashicorp/raft"), depstest.Under("github.com/hashicorp/serf"),
		depstest.Under("net/rpc"), depstest.Under("testing"))
}
