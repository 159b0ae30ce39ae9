package server

import (
	"testing"

	"github.com/nomadish/nomadish/server/cluster"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// startDiskServer starts a one-server cluster on dir with the default raft
// durability knobs (raft_durability_test.go's startRaftServer).
func startDiskServer(t *testing.T, dir string) *Server {
	t.Helper()
	return startRaftServer(t, dir, cluster.RaftConfig{})
}

func TestRestartKeepsState(t *testing.T) {
	dir := t.TempDir()
	s := startDiskServer(t, dir)
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("web")}, &resp); err != nil {
		s.Shutdown()
		t.Fatal(err)
	}
	// A raft snapshot, then one more entry: the restart restores the
	// snapshot and replays the log after it.
	if err := s.cluster.Raft().Snapshot().Error(); err != nil {
		s.Shutdown()
		t.Fatalf("raft snapshot: %v", err)
	}
	var resp2 structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("after-snapshot")}, &resp2); err != nil {
		s.Shutdown()
		t.Fatal(err)
	}
	if err := s.Shutdown(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}

	s2 := startDiskServer(t, dir)
	defer s2.Shutdown()
	var job structs.SingleJobResponse
	if err := s2.RPC(structs.JobGetJobRPC, &structs.JobSpecificRequest{JobID: "web"}, &job); err != nil || job.Job == nil {
		t.Fatalf("job lost across restart: %v %v", job.Job, err)
	}
	if job.Job.JobModifyIndex != resp.JobModifyIndex {
		t.Fatalf("job modify index %d, want %d", job.Job.JobModifyIndex, resp.JobModifyIndex)
	}
	if j, _ := s2.State().JobByID(nil, "default", "after-snapshot"); j == nil {
		t.Fatal("entry after the snapshot lost")
	}
	var peers []string
	if err := s2.RPC(structs.StatusPeersRPC, &structs.GenericRequest{}, &peers); err != nil || len(peers) != 1 || peers[0] != s2.RPCAddr() {
		t.Fatalf("peers %v (want [%s]): %v", peers, s2.RPCAddr(), err)
	}
	// The restarted server still accepts writes.
	if err := s2.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("second")}, &resp); err != nil {
		t.Fatal(err)
	}
}
