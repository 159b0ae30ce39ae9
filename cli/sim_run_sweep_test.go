package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/sim/report"
)

// simCompareJSON is `sim run -compare ... -json`'s document.
type simCompareJSON struct {
	A, B   *report.Report
	Deltas []report.Delta
}

func TestSimRunCompareNodes(t *testing.T) {
	path := simTraceFile(t) // 20 jobs x 3 allocations of 500 MHz, 256 MiB
	// 2 nodes of 4 x 1000 MHz hold 16 of the 60 allocations; 20 nodes hold all.
	code, out, errOut := runCLI(nil, "sim", "run", "-nodes", "2", "-topology", "1x4@1000MHz/8GiB",
		"-trace", path, "-duration", "1h", "-compare", "nodes=20", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc simCompareJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not a comparison: %v\n%s", err, out)
	}
	a, b := doc.A, doc.B
	if a.Config["nodes"] != "2" || b.Config["nodes"] != "20" || a.Config["trace_jobs"] != b.Config["trace_jobs"] {
		t.Fatalf("configs %v / %v: want 2 then 20 nodes on the same trace", a.Config, b.Config)
	}
	if a.Rejections == 0 || a.AtFirstRejection == nil || b.Rejections != 0 || b.Placements != 60 {
		t.Fatalf("2 nodes: %d rejections, 20 nodes: %d rejections %d placements; want some, then none and 60",
			a.Rejections, b.Rejections, b.Placements)
	}
}

func TestSimRunCompareTopology(t *testing.T) {
	path := simTraceFile(t)
	code, out, errOut := runCLI(nil, "sim", "run", "-nodes", "2", "-topology", "1x4@1000MHz/8GiB",
		"-trace", path, "-duration", "1h", "-compare", "topology=2x16@2000MHz/64GiB", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc simCompareJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.B.Config["cluster"], "2x16x1@2000MHz/65536MiB") || doc.B.Config["nodes"] != "2" {
		t.Fatalf("run B's cluster %q, %s nodes; want 2 nodes of 2x16x1@2000MHz", doc.B.Config["cluster"], doc.B.Config["nodes"])
	}
	if doc.B.Rejections != 0 || doc.A.Rejections == 0 {
		t.Fatalf("rejections %d then %d; want some on the small nodes, none on the big", doc.A.Rejections, doc.B.Rejections)
	}
}

func TestSimRunWorkerSweep(t *testing.T) {
	path := simTraceFile(t)
	args := []string{"sim", "run", "-nodes", "4", "-topology", "1x8@2000MHz/16GiB", "-trace", path,
		"-duration", "1h", "-workers", "1,2,4,8"}
	code, out, errOut := runCLI(nil, append(args, "-json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not one report: %v\n%s", err, out)
	}
	if len(r.WorkerSweep) != 4 || r.Config["worker_sweep"] != "1,2,4,8" {
		t.Fatalf("sweep %+v, config %v; want 4 rows", r.WorkerSweep, r.Config)
	}
	for i, want := range []int{1, 2, 4, 8} {
		if p := r.WorkerSweep[i]; p.Workers != want || p.QueueDelay.Count == 0 {
			t.Errorf("row %d: %+v; want %d workers with measured delays", i, p, want)
		}
	}
	// One worker plans against the newest state: nothing to conflict with.
	if p := r.WorkerSweep[0]; p.PlanConflicts != 0 || p.Retries != 0 || r.Workers != 1 {
		t.Errorf("1 worker: %+v, report of %d workers; want no conflicts, the first count's report", p, r.Workers)
	}
	code, out, errOut = runCLI(nil, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(out, "\n")
	var head, rows int
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) > 0 && f[0] == "workers" && strings.Contains(l, "conflicts") && strings.Contains(l, "queue p99"):
			head++
		case head == 1 && len(f) == 11 && f[4] == "ms":
			rows++
		}
	}
	if head != 1 || rows != 4 {
		t.Fatalf("want a table of 4 rows, got %d heads %d rows:\n%s", head, rows, out)
	}
}

func TestSimRunBadSweepAndOverrides(t *testing.T) {
	path := simTraceFile(t)
	cases := map[string][]string{
		`"x" is not a worker count`: {"-trace", path, "-workers", "1,x"},
		"listed twice":              {"-trace", path, "-workers", "2,2"},
		`"0" is not a worker count`: {"-trace", path, "-workers", "1,0"},
		"give one worker count":     {"-trace", path, "-workers", "1,2", "-compare", "nodes=3"},
		`nodes="0"`:                 {"-trace", path, "-compare", "nodes=0"},
		`nodes="ten"`:               {"-trace", path, "-compare", "nodes=ten"},
		`topology="4by4"`:           {"-trace", path, "-compare", "topology=4by4"},
	}
	for want, args := range cases {
		code, _, errOut := runCLI(nil, append([]string{"sim", "run", "-nodes", "2"}, args...)...)
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", args, code, errOut, want)
		}
	}
}

func TestSimAloneListsItsCommands(t *testing.T) {
	_, out, errOut := runCLI(nil, "sim")
	for _, want := range []string{"sim run", "sim report", "sim cluster"} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("`nomadish sim` does not list %q:\n%s%s", want, out, errOut)
		}
	}
	code, out, errOut := runCLI(nil, "sim", "run", "-h")
	if code != 0 || !strings.Contains(out+errOut, "nodes=1250") || !strings.Contains(out+errOut, "1,2,4,8") {
		t.Errorf("sim run -h: exit %d, %s%s; want 0 and -compare's nodes= and -workers' list explained", code, out, errOut)
	}
}
