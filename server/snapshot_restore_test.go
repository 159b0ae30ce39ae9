package server

import (
	"testing"

	"github.com/nomadish/nomadish/server/cluster"
	"github.com/nomadish/nomadish/server/snapshot/snapshottest"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// TestOperatorSnapshotRestoreRefusesBombs: over the RPC, a bomb and an
// archive whose state does not decode are refused with 400 before raft
// restores anything; the state is unchanged, no file is left in the data
// dir, and a real snapshot still restores.
func TestOperatorSnapshotRestoreRefusesBombs(t *testing.T) {
	dir := t.TempDir()
	s := startRaftServer(t, dir, cluster.RaftConfig{})
	defer s.Shutdown()
	s.cfg.SnapshotRestoreMaxBytes = 32 << 20
	registerJob(t, s, structstest.Job("kept"))
	var saved structs.SnapshotSaveResponse
	if err := s.RPC(structs.OperatorSnapshotSaveRPC, &structs.GenericRequest{}, &saved); err != nil {
		t.Fatal(err)
	}
	registerJob(t, s, structstest.Job("extra"))
	store := s.State() // a restore replaces the store
	meta, st, sums := snapshottest.WellFormed([]byte("\x93not the state's encoding"))
	for name, archive := range map[string][]byte{
		"bomb over the cap":         snapshottest.Bomb(t, 1<<40, 4<<20),
		"bomb streaming to the cap": snapshottest.Bomb(t, 32<<20-1024, 40<<20),
		"undecodable state":         snapshottest.TarGz(t, meta, st, sums),
	} {
		var rr structs.SnapshotRestoreResponse
		err := s.RPC(structs.OperatorSnapshotRestoreRPC, &structs.SnapshotRestoreRequest{Archive: archive}, &rr)
		if errCode(err) != structs.ErrCodeBadRequest {
			t.Fatalf("%s: %v, want a 400 coded error", name, err)
		}
		if j, _ := s.State().JobByID(nil, "default", "extra"); j == nil || s.State() != store {
			t.Fatalf("%s: a refused restore changed the state", name)
		}
		snapshottest.NoTempFiles(t, dir)
	}
	var rr structs.SnapshotRestoreResponse
	if err := s.RPC(structs.OperatorSnapshotRestoreRPC, &structs.SnapshotRestoreRequest{Archive: saved.Archive}, &rr); err != nil {
		t.Fatal(err)
	}
	if j, _ := s.State().JobByID(nil, "default", "extra"); j != nil {
		t.Fatalf("restore did not apply: %v", j.ID)
	}
	snapshottest.NoTempFiles(t, dir)
}
