package endpoints

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDepsEndpoints keeps the endpoints off the server's machinery: their
// production code reaches the server only through Deps, so it imports no
// server root package, raft, serf, agent, client or testing (structs'
// msgpack codec, which ships an RPC codec, is not descended into).
func TestDepsEndpoints(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	const mod = "github.com/nomadish/nomadish/"
	const self = mod + "server/endpoints"
	if _, ok := imports[self]; !ok || len(imports) < 10 {
		t.Fatalf("go list -deps gave too little to judge:\n%s", out)
	}
	via := map[string]string{self: ""}
	queue := []string{self}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == "github.com/hashicorp/go-msgpack/v2/codec" {
			continue
		}
		for _, q := range imports[p] {
			if _, seen := via[q]; !seen {
				via[q] = p
				queue = append(queue, q)
			}
		}
	}
	exact := []string{mod + "server"}
	prefixes := []string{mod + "agent", mod + "client", "github.com/hashicorp/raft", "github.com/hashicorp/serf", "net/rpc", "testing"}
	for d := range via {
		bad := false
		for _, f := range exact {
			bad = bad || d == f
		}
		for _, f := range prefixes {
			bad = bad || d == f || strings.HasPrefix(d, f+"/")
		}
		if bad {
			var chain []string
			for p := d; p != ""; p = via[p] {
				chain = append([]string{p}, chain...)
			}
			t.Errorf("endpoints import %s via %s", d, strings.Join(chain, " -> "))
		}
	}
}
