package agent

import (
	"sort"
	"testing"
)

// TestEveryRouteDeclaresACapability: each route the agent serves has its
// ACL requirement in routeCaps, and routeCaps names no route that is gone.
func TestEveryRouteDeclaresACapability(t *testing.T) {
	s := newHTTPServer(httpDeps{RPC: newFakeRPC()})
	if len(s.patterns) < 50 {
		t.Fatalf("only %d routes recorded", len(s.patterns))
	}
	served := map[string]bool{}
	for _, p := range s.patterns {
		k := routeKey(p)
		served[k] = true
		c, ok := routeCaps[k]
		if !ok {
			t.Errorf("route %q declares no capability (add %q to routeCaps)", p, k)
			continue
		}
		readWrite := c.Scope == scopeNode || c.Scope == scopeAgent || c.Scope == scopeOperator
		if c.Scope == scopeNamespace && c.Cap == "" || readWrite && c.Cap != "read" && c.Cap != "write" ||
			c.Scope == scopeNodePool && c.Cap != "read" && c.Cap != "write" && c.Cap != "delete" {
			t.Errorf("route %q: malformed requirement %+v", p, c)
		}
	}
	var stale []string
	for k := range routeCaps {
		if !served[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("routeCaps names routes no longer served: %v", stale)
	}
}
