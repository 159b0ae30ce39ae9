package server

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/structs"
)

func TestRaftConfigApplyTo(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   RaftConfig
		dev  bool
		want func(c *raft.Config)
		err  error
	}{
		{"zero keeps raft defaults", RaftConfig{}, false, func(*raft.Config) {}, nil},
		{"knobs set", RaftConfig{SnapshotThreshold: 64, SnapshotInterval: time.Second, TrailingLogs: 16}, false, func(c *raft.Config) {
			c.SnapshotThreshold, c.SnapshotInterval, c.TrailingLogs = 64, time.Second, 16
		}, nil},
		{"dev ignores knobs", RaftConfig{SnapshotThreshold: 64}, true, func(*raft.Config) {}, nil},
		{"interval too short", RaftConfig{SnapshotInterval: time.Millisecond}, false, nil, ErrConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, want := raft.DefaultConfig(), raft.DefaultConfig()
			err := tc.in.applyTo(got, tc.dev)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if tc.err != nil {
				return
			}
			tc.want(want)
			if got.SnapshotThreshold != want.SnapshotThreshold || got.SnapshotInterval != want.SnapshotInterval || got.TrailingLogs != want.TrailingLogs {
				t.Fatalf("got threshold %d interval %s trailing %d, want %d %s %d", got.SnapshotThreshold, got.SnapshotInterval,
					got.TrailingLogs, want.SnapshotThreshold, want.SnapshotInterval, want.TrailingLogs)
			}
		})
	}
}

func startRaftServer(t *testing.T, dir string, rc RaftConfig) *Server {
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
	rc := RaftConfig{TrailingLogs: 4, SnapshotThreshold: 1 << 20, SnapshotInterval: time.Hour}
	s := startRaftServer(t, dir, rc)
	defer func() { s.Shutdown() }()
	register := func(id string) {
		t.Helper()
		var resp structs.JobRegisterResponse
		if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: mockJob(id)}, &resp); err != nil {
			t.Fatal(err)
		}
	}
	registerNode(t, s, "n1")
	for i := range 20 {
		register("before-" + strconv.Itoa(i))
	}
	if err := s.raft.Snapshot().Error(); err != nil {
		t.Fatalf("raft snapshot: %v", err)
	}
	snapIndex, _ := strconv.ParseUint(s.raft.Stats()["last_snapshot_index"], 10, 64)
	first, err := s.raftBolt.(raft.LogStore).FirstIndex()
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
	want := dumpState(t, s.State())

	s = startRaftServer(t, dir, rc)
	got := dumpState(t, s.State())
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
func durable(d stateDump) []string {
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
