package server

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"
	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/server/cluster"
	"github.com/nomadish/nomadish/server/snapshot"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

func errCode(err error) int {
	var ce *structs.CodedError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return 0
}

func raftConfiguration(t *testing.T, s *Server) *structs.RaftConfigurationResponse {
	t.Helper()
	var reply structs.RaftConfigurationResponse
	if err := s.RPC(structs.OperatorRaftGetConfigurationRPC, &structs.GenericRequest{}, &reply); err != nil {
		t.Fatal(err)
	}
	return &reply
}

func TestOperatorRaftConfigurationAndRemovePeer(t *testing.T) {
	s := startRaftServer(t, t.TempDir(), cluster.RaftConfig{})
	defer s.Shutdown()
	conf := raftConfiguration(t, s)
	if len(conf.Servers) != 1 {
		t.Fatalf("configuration: %+v", conf)
	}
	self := conf.Servers[0]
	want := structs.RaftServer{ID: s.cluster.ServerID(), Node: "server", Address: s.RPCAddr(), Leader: true, Voter: true, RaftProtocol: "3"}
	if *self != want {
		t.Fatalf("self %+v, want %+v", *self, want)
	}

	// Two non-voters at addresses nobody serves: their configuration
	// changes commit with the single voter alone.
	for _, p := range []struct{ id, addr string }{{"p1", "127.0.0.1:1"}, {"p2", "127.0.0.1:2"}} {
		if err := s.cluster.Raft().AddNonvoter(raft.ServerID(p.id), raft.ServerAddress(p.addr), 0, 5*time.Second).Error(); err != nil {
			t.Fatal(err)
		}
	}
	if conf := raftConfiguration(t, s); len(conf.Servers) != 3 || conf.Servers[1].Voter || conf.Servers[1].Leader || conf.Servers[1].Node != "127.0.0.1" {
		t.Fatalf("with non-voters: %+v", conf.Servers)
	}
	var resp structs.GenericResponse
	if err := s.RPC(structs.OperatorRaftRemovePeerByIDRPC, &structs.RaftPeerRequest{ID: "p1"}, &resp); err != nil || resp.Index == 0 {
		t.Fatalf("remove by id: %v (index %d)", err, resp.Index)
	}
	if err := s.RPC(structs.OperatorRaftRemovePeerByAddressRPC, &structs.RaftPeerRequest{Address: "127.0.0.1:2"}, &resp); err != nil {
		t.Fatalf("remove by address: %v", err)
	}
	if conf := raftConfiguration(t, s); len(conf.Servers) != 1 || conf.Servers[0].ID != s.cluster.ServerID() {
		t.Fatalf("after removals: %+v", conf.Servers)
	}

	for _, tc := range []struct {
		method string
		args   structs.RaftPeerRequest
		code   int
	}{
		{structs.OperatorRaftRemovePeerByIDRPC, structs.RaftPeerRequest{ID: "p1"}, structs.ErrCodeNotFound},
		{structs.OperatorRaftRemovePeerByAddressRPC, structs.RaftPeerRequest{Address: "127.0.0.1:9"}, structs.ErrCodeNotFound},
		{structs.OperatorRaftRemovePeerByIDRPC, structs.RaftPeerRequest{}, structs.ErrCodeBadRequest},
	} {
		if err := s.RPC(tc.method, &tc.args, &resp); errCode(err) != tc.code {
			t.Errorf("%s %+v: %v, want code %d", tc.method, tc.args, err, tc.code)
		}
	}
}

// TestOperatorSnapshotSaveRestore: save, register more jobs, restore: the
// state is the snapshot's (the extra jobs are gone), writes go on after it,
// and a corrupt archive is refused without changing anything.
func TestOperatorSnapshotSaveRestore(t *testing.T) {
	s := startRaftServer(t, t.TempDir(), cluster.RaftConfig{})
	defer s.Shutdown()
	registerJob(t, s, structstest.Job("kept"))
	var saved structs.SnapshotSaveResponse
	if err := s.RPC(structs.OperatorSnapshotSaveRPC, &structs.GenericRequest{}, &saved); err != nil {
		t.Fatal(err)
	}
	if len(saved.Archive) == 0 || saved.Index == 0 {
		t.Fatalf("save: %d bytes at index %d", len(saved.Archive), saved.Index)
	}
	arc, err := snapshot.Read(bytesReader(saved.Archive), t.TempDir(), snapshot.DefaultRestoreMaxBytes)
	if err != nil || arc.Meta.Size == 0 {
		t.Fatalf("archive: %v", err)
	}
	if err := arc.Close(); err != nil {
		t.Fatal(err)
	}
	registerJob(t, s, structstest.Job("extra"))

	corrupt := append([]byte(nil), saved.Archive...)
	corrupt[len(corrupt)/2] ^= 0xff
	var rr structs.SnapshotRestoreResponse
	if err := s.RPC(structs.OperatorSnapshotRestoreRPC, &structs.SnapshotRestoreRequest{Archive: corrupt}, &rr); errCode(err) != structs.ErrCodeBadRequest {
		t.Fatalf("corrupt archive: %v, want a 400 coded error", err)
	}
	if j, _ := s.State().JobByID(nil, "default", "extra"); j == nil {
		t.Fatal("a refused restore changed the state")
	}

	if err := s.RPC(structs.OperatorSnapshotRestoreRPC, &structs.SnapshotRestoreRequest{Archive: saved.Archive}, &rr); err != nil {
		t.Fatal(err)
	}
	if rr.Index <= saved.Index {
		t.Fatalf("restore index %d, snapshot at %d", rr.Index, saved.Index)
	}
	if j, _ := s.State().JobByID(nil, "default", "extra"); j != nil {
		t.Fatal("job registered after the snapshot survived the restore")
	}
	if j, _ := s.State().JobByID(nil, "default", "kept"); j == nil {
		t.Fatal("job in the snapshot missing after the restore")
	}
	registerJob(t, s, structstest.Job("after-restore"))
	if j, _ := s.State().JobByID(nil, "default", "after-restore"); j == nil {
		t.Fatal("write after the restore lost")
	}
	// The leader duties run again on the restored state: the new job's
	// eval is processed (blocked: there is no node).
	waitState(t, s, "the eval of a job registered after the restore is processed", func(st *state.StateStore, ws memdb.WatchSet) bool {
		evals, _ := st.EvalsByJob(ws, "default", "after-restore")
		return len(evals) > 0 && evals[0].Status != structs.EvalStatusPending
	})
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
