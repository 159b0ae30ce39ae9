package fsm

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDepsFSM keeps the FSM a pure writer of the state store (CONVENTIONS
// 10): its production code imports the standard library, raft's FSM
// contract, the logger, server/state and structs, nothing of the server
// (no broker, no endpoints).
func TestDepsFSM(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := map[string]bool{
		"github.com/hashicorp/go-hclog":             true,
		"github.com/hashicorp/raft":                 true,
		"github.com/nomadish/nomadish/server/state": true,
		"github.com/nomadish/nomadish/structs":      true,
	}
	imports := strings.Fields(string(out))
	if len(imports) == 0 {
		t.Fatal("go list gave no imports")
	}
	for _, p := range imports {
		if !allowed[p] && strings.Contains(strings.SplitN(p, "/", 2)[0], ".") {
			t.Errorf("server/fsm imports %s: only the standard library, raft, go-hclog, server/state and structs are allowed", p)
		}
	}
}
