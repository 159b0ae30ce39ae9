package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/sim/report"
)

// simCluster runs `sim cluster -json` with args and decodes its report.
func simCluster(t *testing.T, args ...string) (result, *report.Report) {
	t.Helper()
	r := runNomadish(t, "", nil, append([]string{"sim", "cluster", "-json", "-quiet", "-data-dir", t.TempDir()}, args...)...)
	var rep report.Report
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatalf("sim cluster printed no JSON report: %v\n%s", err, r)
	}
	return r, &rep
}

// checkFullReport holds what every successful full-mode report must say.
func checkFullReport(t *testing.T, rep *report.Report, servers, nodes, allocs, jobs int) {
	t.Helper()
	if rep.Mode != "full" || rep.Jobs != jobs || rep.Placements != allocs {
		t.Errorf("mode %q, %d jobs, %d placements; want full, %d, %d", rep.Mode, rep.Jobs, rep.Placements, jobs, allocs)
	}
	s := rep.Server
	if s == nil {
		t.Fatal("no server stats")
	}
	if s.Servers != servers || s.Nodes != nodes {
		t.Errorf("server stats say %d servers, %d nodes; want %d, %d", s.Servers, s.Nodes, servers, nodes)
	}
	if s.RSSBytes == 0 || s.RaftLogBytes == 0 || s.SnapshotBytes == 0 {
		t.Errorf("empty server readings: %+v", s)
	}
	if len(rep.Throughput) == 0 || rep.Throughput[len(rep.Throughput)-1].Placed != allocs {
		t.Errorf("throughput does not end at %d placements: %+v", allocs, rep.Throughput)
	}
	if l := rep.PlacementLatency; l.Count != allocs || l.P50 <= 0 || l.P50 > l.P99 || l.P99 > l.Max {
		t.Errorf("placement latency %+v for %d allocations", l, allocs)
	}
	if rep.WallTime <= 0 {
		t.Errorf("wall time %s", rep.WallTime)
	}
	if rep.BlockedEvalsPeak > jobs {
		t.Errorf("%d blocked evals at peak for %d jobs: more than one per job", rep.BlockedEvalsPeak, jobs)
	}
}

// TestSimCluster is the full-mode check: a real server, 200
// simulated nodes and 5,000 allocations, all placed and reported running.
func TestSimCluster(t *testing.T) {
	r, rep := simCluster(t, "-nodes", "200", "-allocs", "5000", "-jobs", "5", "-profile", "2")
	if r.code != 0 {
		t.Fatalf("sim cluster failed:\n%s", r)
	}
	checkFullReport(t, rep, 1, 200, 5000, 5)
	if len(rep.Server.Profile) == 0 {
		t.Error("no CPU profile of the server")
	}
	// No check of HeartbeatsPerSec: a run this short may end before the
	// first heartbeat is due (a third of a TTL of 10 s or more).
}

// TestSimClusterThreeServers runs full mode on three joined servers, with
// service jobs, the nodes spread over the three.
func TestSimClusterThreeServers(t *testing.T) {
	r, rep := simCluster(t, "-servers", "3", "-nodes", "30", "-allocs", "600", "-jobs", "3", "-type", "service", "-profile", "0")
	if r.code != 0 {
		t.Fatalf("sim cluster -servers 3 failed:\n%s", r)
	}
	checkFullReport(t, rep, 3, 30, 600, 3)
}

// TestSimClusterBadFlags: bad flags name the flag and exit 1, starting
// nothing.
func TestSimClusterBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-servers", "2"}, "-servers 2"},
		{[]string{"-nodes", "0"}, "-nodes 0"},
		{[]string{"-allocs", "50000", "-jobs", "1"}, "job_max_count"},
		{[]string{"-type", "system"}, "-type"},
		{[]string{"-nodes", "x"}, "-nodes"},
	} {
		r := runNomadish(t, "", nil, append([]string{"sim", "cluster"}, c.args...)...)
		if r.code != 1 || !strings.Contains(r.errOut, c.want) || r.out != "" {
			t.Errorf("sim cluster %v: want exit 1 naming %q and no report, got\n%s", c.args, c.want, r)
		}
	}
}

// TestSimClusterShortOfRoom: with less room than asked for, the run ends
// at -timeout with exit 1 saying how many were placed, still prints its
// report, and never holds more than one blocked eval per job.
func TestSimClusterShortOfRoom(t *testing.T) {
	r, rep := simCluster(t, "-nodes", "20", "-node-cpu", "10", "-allocs", "400", "-jobs", "8", "-type", "service",
		"-timeout", "8s", "-profile", "0")
	if r.code != 1 || !strings.Contains(r.errOut, "200 of 400 placed") {
		t.Fatalf("want exit 1 saying 200 of 400 placed:\n%s", r)
	}
	if rep.Placements != 200 || rep.BlockedEvalsPeak > 8 {
		t.Errorf("%d placed (want 200), %d blocked evals at peak for 8 jobs", rep.Placements, rep.BlockedEvalsPeak)
	}
}
