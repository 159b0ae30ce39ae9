package server

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/server/cluster"
	"github.com/nomadish/nomadish/server/state/statetest"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

func startRaftServer(t *testing.T, dir string, rc cluster.RaftConfig) *Server {
	t.Helper()
	s, err := NewServer(&Config{DataDir: dir, RPCAddr: "127.0.0.1:0", BootstrapExpect: 1, NumSchedulers: 1,
		Logger: hclog.NewNullLogger(), Raft: rc})
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.WaitForLeader(ctx); err != nil {
		s.Shutdown()
		t.Fatal(err)
	}
	return s
}

// TestRestartAfterCompactedSnapshot: a server with a small raft_trailing_logs
// takes a snapshot (its log is truncated to the trailing entries), writes
// more entries, and is restarted on the same data dir: it has every row of
// every table, from the snapshot plus the log after it.
func TestRestartAfterCompactedSnapshot(t *testing.T) {
	dir := t.TempDir()
	rc := cluster.RaftConfig{TrailingLogs: 4, SnapshotThreshold: 1 << 20, SnapshotInterval: time.Hour}
	s := startRaftServer(t, dir, rc)
	defer func() { s.Shutdown() }()
	register := func(id string) {
		t.Helper()
		var resp structs.JobRegisterResponse
		if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job(id)}, &resp); err != nil {
			t.Fatal(err)
		}
	}
	registerNode(t, s, "n1")
	for i := range 20 {
		register("before-" + strconv.Itoa(i))
	}
	if err := s.cluster.Raft().Snapshot().Error(); err != nil {
		t.Fatalf("raft snapshot: %v", err)
	}
	snapIndex, _ := strconv.ParseUint(s.cluster.Stats()["last_snapshot_index"], 10, 64)
	first, err := s.cluster.FirstLogIndex()
	if err != nil {
		t.Fatal(err)
	}
	// Raft keeps at least TrailingLogs entries and none the snapshot lacks:
	// it truncates up to min(snapshot, last-TrailingLogs), and entries may
	// have been appended since the snapshot. Raft's default (10240) would
	// keep the whole log (first index 1).
	if snapIndex < 20 || first < snapIndex-rc.TrailingLogs+1 || first > snapIndex+1 {
		t.Fatalf("log starts at %d after a snapshot at %d, want %d..%d (raft_trailing_logs %d)",
			first, snapIndex, snapIndex-rc.TrailingLogs+1, snapIndex+1, rc.TrailingLogs)
	}
	for i := range 5 {
		register("after-" + strconv.Itoa(i))
	}
	registerNode(t, s, "n2")
	var sc structs.SchedulerSetConfigurationResponse
	if err := s.RPC(structs.OperatorSchedulerSetConfigurationRPC, &structs.SchedulerSetConfigRequest{
		Config: structs.SchedulerConfiguration{SchedulerAlgorithm: "spread"}}, &sc); err != nil {
		t.Fatal(err)
	}
	if err := s.Shutdown(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	// Read after shutdown: nothing (a scheduler's plan) changes it anymore.
	want := statetest.DumpState(t, s.State())

	s = startRaftServer(t, dir, rc)
	got := statetest.DumpState(t, s.State())
	if len(got.Jobs) != 25 || len(got.Nodes) != 2 || got.Scheduler.SchedulerAlgorithm != "spread" {
		t.Fatalf("after restart: %d jobs, %d nodes, scheduler %+v", len(got.Jobs), len(got.Nodes), got.Scheduler)
	}
	// The scheduler keeps running after the restart (job status, evals,
	// allocs move on); what was written must be there, at its indexes.
	if !reflect.DeepEqual(durable(got), durable(want)) || !reflect.DeepEqual(got.Scheduler, want.Scheduler) {
		t.Fatalf("state differs after restart:\n got %v\nwant %v", durable(got), durable(want))
	}
	if len(got.Evals) < len(want.Evals) || len(got.Allocs) < len(want.Allocs) {
		t.Fatalf("after restart %d evals, %d allocs; before %d, %d", len(got.Evals), len(got.Allocs), len(want.Evals), len(want.Allocs))
	}
}

// durable projects the rows a restart must keep unchanged: each job's and
// job version's identity and indexes, each node's identity and create index.
func durable(d statetest.Dump) []string {
	var out []string
	for _, j := range d.Jobs {
		out = append(out, fmt.Sprintf("job %s v%d create %d modify %d", j.ID, j.Version, j.CreateIndex, j.JobModifyIndex))
	}
	for _, vs := range d.JobVersions {
		for _, j := range vs {
			out = append(out, fmt.Sprintf("version %s v%d modify %d", j.ID, j.Version, j.JobModifyIndex))
		}
	}
	for _, n := range d.Nodes {
		out = append(out, fmt.Sprintf("node %s create %d", n.ID, n.CreateIndex))
	}
	return out
}
