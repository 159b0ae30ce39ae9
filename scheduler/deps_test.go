package scheduler

import (
	"testing"

	"github.com/nomadish/nomadish/internal/depstest"
)

// msgpackCodec is structs' encoding dependency. It ships an RPC codec and so
// imports net/rpc (and through it net/http); nothing in nomadish reaches
// that code through the scheduler, so the walk below does not descend into it.
const msgpackCodec = "github.com/hashicorp/go-msgpack/v2/codec"

// TestDeps keeps the package pure (CONVENTIONS 1): no server, agent, client
// or raft code, no net/http and no testing in what the scheduler's production
// code imports, directly or through its own module's packages.
func TestDeps(t *testing.T) {
	const mod = "github.com/nomadish/nomadish/"
	depstest.Forbid(t, ".", []string{msgpackCodec},
		depstest.Under(mod+"server"), depstest.Under(mod+"agent"), depstest.Under(mod+"client"),
		depstest.Under("github.com/hashicorp/raft"), depstest.Under("net/http"), depstest.Under("net/rpc"),
		depstest.Under("testing"))
}

// TestDepsReconcile keeps scheduler/reconcile a pure decision over the data
// model: its production code imports the standard library and structs only.
func TestDepsReconcile(t *testing.T) {
	depstest.OnlyImports(t, "./reconcile", "github.com/nomadish/nomadish/structs")
}
