package scheduler

import (
	"os/exec"
	"strings"
	"testing"
)

// msgpackCodec is structs' encoding dependency. It ships an RPC codec and so
// imports net/rpc (and through it net/http); nothing in nomadish reaches
// that code through the scheduler, so the walk below does not descend into it.
const msgpackCodec = "github.com/hashicorp/go-msgpack/v2/codec"

// TestDeps keeps the package pure (CONVENTIONS 1): no server, agent, client
// or raft code, no net/http and no testing in what the scheduler's production
// code imports, directly or through its own module's packages.
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	const self = "github.com/nomadish/nomadish/scheduler"
	if _, ok := imports[self]; !ok || len(imports) < 10 {
		t.Fatalf("go list -deps gave too little to judge:\n%s", out)
	}
	// Walk the import graph from the scheduler, remembering how each
	// package was reached so a failure names the path.
	via := map[string]string{self: ""}
	queue := []string{self}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == msgpackCodec {
			continue
		}
		for _, q := range imports[p] {
			if _, seen := via[q]; !seen {
				via[q] = p
				queue = append(queue, q)
			}
		}
	}
	const mod = "github.com/nomadish/nomadish/"
	forbidden := []string{mod + "server", mod + "agent", mod + "client", "github.com/hashicorp/raft", "net/http", "net/rpc", "testing"}
	for d := range via {
		for _, f := range forbidden {
			if d == f || strings.HasPrefix(d, f+"/") {
				t.Errorf("scheduler imports %s (forbidden: %s) via %s", d, f, importChain(via, d))
			}
		}
	}
}

// TestDepsReconcile keeps scheduler/reconcile a pure decision over the data
// model: its production code imports the standard library and structs only.
func TestDepsReconcile(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{.Standard}}`, "./reconcile").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	standard := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		standard[f[0]] = len(f) > 1 && f[1] == "true"
	}
	const self = "github.com/nomadish/nomadish/scheduler/reconcile"
	if _, ok := standard[self]; !ok || len(standard) < 10 {
		t.Fatalf("go list -deps gave too little to judge:\n%s", out)
	}
	out, err = exec.Command("go", "list", "-f", `{{join .Imports " "}}`, "./reconcile").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	imports := strings.Fields(string(out))
	if len(imports) == 0 {
		t.Fatalf("go list gave no imports for %s", self)
	}
	for _, p := range imports {
		if !standard[p] && p != "github.com/nomadish/nomadish/structs" {
			t.Errorf("scheduler/reconcile imports %s: only the standard library and structs are allowed", p)
		}
	}
}

func importChain(via map[string]string, p string) string {
	var chain []string
	for ; p != ""; p = via[p] {
		chain = append([]string{p}, chain...)
	}
	return strings.Join(chain, " -> ")
}
