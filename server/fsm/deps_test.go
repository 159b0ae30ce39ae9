package fsm

import (
	"testing"

	"github.com/nomadish/nomadish/internal/depstest"
)

// TestDepsFSM keeps the FSM a pure writer of the state store (CONVENTIONS
// 10): its production code imports the standard library, raft's FSM
// contract, the logger, server/state and structs, nothing of the server
// (no broker, no endpoints).
func TestDepsFSM(t *testing.T) {
	depstest.OnlyImports(t, ".", "github.com/hashicorp/go-hclog", "github.com/hashicorp/raft",
		"github.com/nomadish/nomadish/server/state", "github.com/nomadish/nomadish/structs")
}
