package fast

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/nomadish/nomadish/sim/cluster"
	"github.com/nomadish/nomadish/sim/report"
	"github.com/nomadish/nomadish/sim/trace"
	"github.com/nomadish/nomadish/structs"
)

// smallCluster is n nodes of 2 NUMA nodes x 4 cores at 1000 MHz, 8 GiB.
func smallCluster(n int) cluster.Spec {
	return cluster.Spec{Nodes: n, Racks: 2, Classes: []cluster.Class{{Name: "small", Sockets: 2, CoresPerSocket: 4,
		ThreadsPerCore: 1, MHz: 1000, MemoryMB: 8192}}}
}

func batch(id string, at time.Duration, count, cpu int, d time.Duration) trace.Job {
	return trace.Job{ID: id, Arrival: at, Type: "batch", Priority: 50, Count: count, CPU: cpu, MemoryMB: 256, Duration: d}
}

// run runs cfg, failing the test on error.
func run(t testing.TB, cfg Config) (*Sim, *report.Report) {
	t.Helper()
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	s, err := newSim(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.loop(); err != nil {
		t.Fatal(err)
	}
	return s, s.report()
}

func TestJobsThatFitAreAllPlaced(t *testing.T) {
	tr := &trace.Trace{Source: "test"}
	for i := range 10 {
		tr.Jobs = append(tr.Jobs, batch(fmt.Sprintf("j%d", i), time.Duration(i)*time.Second, 4, 500, 0))
	}
	_, r := run(t, Config{Cluster: smallCluster(10), Trace: tr, Duration: time.Hour})
	if r.Placements != 40 || r.Rejections != 0 || r.Jobs != 10 {
		t.Fatalf("placements %d rejections %d jobs %d, want 40 0 10", r.Placements, r.Rejections, r.Jobs)
	}
	if r.PlacementLatency.Count != 10 || r.QueueDelay.Count != 10 {
		t.Fatalf("latencies %+v %+v", r.PlacementLatency, r.QueueDelay)
	}
	last := r.Utilization[len(r.Utilization)-1]
	if want := 40 * 500.0 / (10 * 8000); last.CPU != want || last.RunningAllocs != 40 {
		t.Fatalf("last sample %+v, want cpu %g and 40 running", last, want)
	}
}

func TestJobThatDoesNotFitIsBlockedThenPlaced(t *testing.T) {
	tr := &trace.Trace{Source: "test", Jobs: []trace.Job{
		batch("a", 0, 1, 6000, 10*time.Minute),
		batch("b", time.Minute, 1, 6000, 10*time.Minute),
	}}
	s, r := run(t, Config{Cluster: smallCluster(1), Trace: tr, Duration: time.Hour})
	if r.Rejections < 1 || r.BlockedEvalsPeak != 1 || r.AtFirstRejection == nil {
		t.Fatalf("want b rejected and blocked once: rejections %d blocked peak %d", r.Rejections, r.BlockedEvalsPeak)
	}
	if r.Placements != 2 {
		t.Fatalf("placements %d, want 2 (b once a finished)", r.Placements)
	}
	// b arrived at 1m and was placed when a completed, ~10m after a started.
	if got := r.PlacementLatency.Max; got < 9*time.Minute || got > 11*time.Minute {
		t.Fatalf("b's placement latency %s, want ~10m", got)
	}
	pendingSeen := false
	for _, smp := range r.Utilization {
		pendingSeen = pendingSeen || (smp.PendingAllocs == 1 && smp.BlockedEvals == 1)
	}
	if last := r.Utilization[len(r.Utilization)-1]; !pendingSeen || last.PendingAllocs != 0 {
		t.Fatalf("want b pending and blocked in a sample and nothing pending at the end (last %+v)", last)
	}
	if n := s.blocked.Stats().TotalBlocked; n != 0 {
		t.Fatalf("%d evals still blocked", n)
	}
}

// contended is a burst of jobs on a cluster they nearly fill.
func contended(workers int) Config {
	tr := &trace.Trace{Source: "burst"}
	for i := range 60 {
		tr.Jobs = append(tr.Jobs, batch(fmt.Sprintf("j%02d", i), time.Duration(i)*time.Millisecond, 3, 1000, 0))
	}
	return Config{Cluster: smallCluster(25), Trace: tr, Duration: 10 * time.Minute, Workers: workers, Seed: 3}
}

func TestMoreWorkersConflictOnAContendedCluster(t *testing.T) {
	_, one := run(t, contended(1))
	_, eight := run(t, contended(8))
	if one.PlanConflicts != 0 {
		t.Fatalf("one worker: %d conflicts, want 0", one.PlanConflicts)
	}
	if eight.PlanConflicts == 0 || eight.Retries == 0 {
		t.Fatalf("eight workers: conflicts %d retries %d, want > 0", eight.PlanConflicts, eight.Retries)
	}
	if one.Placements != 180 || eight.Placements != 180 {
		t.Fatalf("placements %d and %d, want 180 each", one.Placements, eight.Placements)
	}
	if eight.QueueDelay.P99 >= one.QueueDelay.P99 {
		t.Fatalf("eight workers queue p99 %s, not below one worker's %s", eight.QueueDelay.P99, one.QueueDelay.P99)
	}
}

func TestSameSeedSameReport(t *testing.T) {
	burst := contended(4)
	burst.NodeFailures = 20
	burst.Preemption = true
	mixed := Config{Cluster: cluster.Spec{Nodes: 20, Racks: 4}, Trace: benchTrace(5, 30*time.Minute, 10*time.Second), Duration: time.Hour,
		Workers: 4, Seed: 9, NodeFailures: 5, Preemption: true, Algorithm: "spread"}
	for name, cfg := range map[string]Config{"burst": burst, "mixed": mixed} {
		_, a := run(t, cfg)
		_, b := run(t, cfg)
		a.WallTime, b.WallTime = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: two runs differ:\n%+v\n%+v", name, a, b)
		}
		if a.Placements == 0 {
			t.Fatalf("%s: nothing placed", name)
		}
	}
}

func TestNodeFailureReschedulesItsAllocs(t *testing.T) {
	tr := &trace.Trace{Source: "test", Jobs: []trace.Job{
		{ID: "web", Type: "service", Priority: 50, Count: 20, CPU: 500, MemoryMB: 256},
	}}
	s, r := run(t, Config{Cluster: smallCluster(10), Trace: tr, Duration: 6 * time.Hour, NodeFailures: 2, Seed: 1})
	if s.nodeFailures == 0 || r.Evictions == 0 {
		t.Fatalf("no node failed or nothing evicted: failures %d evictions %d", s.nodeFailures, r.Evictions)
	}
	if r.Placements < 20+r.Evictions {
		t.Fatalf("placements %d, want the 20 plus a replacement for each of %d evicted", r.Placements, r.Evictions)
	}
	allocs, _ := s.store.Snapshot().ReadView().AllocsByJob(structs.DefaultNamespaceName, "web")
	running := 0
	for _, a := range allocs {
		if !a.TerminalStatus() {
			running++
			if !s.nodes[a.NodeID].ready {
				t.Errorf("alloc %s live on down node %s", a.ID, a.NodeID)
			}
		}
	}
	if running != 20 {
		t.Fatalf("%d live allocs of web, want 20", running)
	}
}

func TestNUMARequireLandsOnOneNUMANode(t *testing.T) {
	tr := &trace.Trace{Source: "test", Jobs: []trace.Job{
		{ID: "pin", Type: "service", Priority: 50, Count: 6, Cores: 3, NUMA: "require", MemoryMB: 256},
	}}
	s, r := run(t, Config{Cluster: smallCluster(4), Trace: tr, Duration: time.Hour})
	if r.Placements != 6 {
		t.Fatalf("placements %d, want 6", r.Placements)
	}
	allocs, _ := s.store.Snapshot().ReadView().AllocsByJob(structs.DefaultNamespaceName, "pin")
	for _, a := range allocs {
		n := s.nodes[a.NodeID]
		numa := map[int]bool{}
		held := 0
		for _, t := range a.AllocatedResources.Tasks {
			for _, c := range t.Cpu.ReservedCores {
				numa[n.coreNUMA[c]] = true
				held++
			}
		}
		if held != 3 || len(numa) != 1 {
			t.Errorf("alloc %s holds %d cores on NUMA nodes %v, want 3 on one", a.ID, held, numa)
		}
	}
	// 4-core NUMA nodes with 3 held leave 1 free: stranded for a 3-core ask.
	last := r.Utilization[len(r.Utilization)-1]
	if last.StrandedCores == 0 {
		t.Fatalf("want stranded cores, got sample %+v", last)
	}
}

func TestBadConfigIsRefused(t *testing.T) {
	tr := &trace.Trace{Jobs: []trace.Job{batch("a", 0, 1, 100, 0)}}
	bad := []Config{
		{Cluster: smallCluster(1)},
		{Cluster: smallCluster(0), Trace: tr},
		{Cluster: smallCluster(1), Trace: tr, Workers: -1},
		{Cluster: smallCluster(1), Trace: tr, Algorithm: "random"},
		{Cluster: smallCluster(1), Trace: &trace.Trace{Jobs: []trace.Job{{ID: "x", Type: "system", Count: 1}}}},
		{Cluster: smallCluster(1), Trace: &trace.Trace{Jobs: []trace.Job{{ID: "x", Type: "batch", NUMA: "always"}}}},
	}
	for i, c := range bad {
		if _, err := Run(c); !errors.Is(err, ErrBadConfig) {
			t.Errorf("config %d: want ErrBadConfig, got %v", i, err)
		}
	}
}

func TestPreemptionMakesRoomForHigherPriority(t *testing.T) {
	low := batch("low", 0, 2, 7000, 0)
	low.Priority = 20
	high := batch("high", time.Minute, 1, 7000, 0)
	high.Priority = 90
	tr := &trace.Trace{Source: "test", Jobs: []trace.Job{low, high}}
	_, off := run(t, Config{Cluster: smallCluster(2), Trace: tr, Duration: time.Hour})
	_, on := run(t, Config{Cluster: smallCluster(2), Trace: tr, Duration: time.Hour, Preemption: true})
	if off.Preemptions != 0 || off.Placements != 2 {
		t.Fatalf("preemption off: %d preemptions %d placements, want 0 and 2", off.Preemptions, off.Placements)
	}
	// high is placed over one of low's allocs; the evicted one waits, blocked.
	if on.Preemptions != 1 || on.Placements < 3 {
		t.Fatalf("preemption on: %d preemptions %d placements, want 1 and at least 3", on.Preemptions, on.Placements)
	}
}

// TestBlockedEvalsAtMostOnePerJob: on an overloaded cluster blocked evals
// never outnumber the jobs waiting, and every job is placed in the end.
func TestBlockedEvalsAtMostOnePerJob(t *testing.T) {
	tr := &trace.Trace{Source: "test"}
	for i := range 12 {
		tr.Jobs = append(tr.Jobs, batch(fmt.Sprintf("j%02d", i), time.Duration(i)*time.Second, 2, 4000, time.Duration(5+i)*time.Minute))
	}
	_, r := run(t, Config{Cluster: smallCluster(2), Trace: tr, Duration: 3 * time.Hour, Workers: 2})
	if r.BlockedEvalsPeak == 0 || r.BlockedEvalsPeak > 12 {
		t.Fatalf("blocked evals peak %d, want 1-12", r.BlockedEvalsPeak)
	}
	for _, smp := range r.Utilization {
		if smp.BlockedEvals > 12 {
			t.Fatalf("%d blocked evals at %s", smp.BlockedEvals, smp.Time)
		}
	}
	if r.Placements != 24 || r.PlacementLatency.Count != 12 {
		t.Fatalf("placements %d, jobs fully placed %d; want 24 and 12", r.Placements, r.PlacementLatency.Count)
	}
}
