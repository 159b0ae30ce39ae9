package server

import (
	"errors"
	"testing"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// TestReadsWaitForLeaderDuties: a consistent read is refused with "no
// leader" while the leader duties (and so the barrier that brings the FSM up
// to date) are not running, and answered once they are; a stale read is
// answered either way.
func TestReadsWaitForLeaderDuties(t *testing.T) {
	s := testServer(t, nil)
	var reg structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("j")}, &reg); err != nil {
		t.Fatal(err)
	}
	s.revokeLeadership()
	s.holdTimeout = 0

	var list structs.JobListResponse
	err := s.RPC(structs.JobListRPC, &structs.JobListRequest{}, &list)
	if !errors.Is(err, structs.ErrNoLeader) {
		t.Fatalf("consistent read without leader duties: err = %v, want ErrNoLeader", err)
	}
	stale := &structs.JobListRequest{QueryOptions: structs.QueryOptions{AllowStale: true}}
	if err := s.RPC(structs.JobListRPC, stale, &list); err != nil || len(list.Jobs) != 1 {
		t.Fatalf("stale read: err %v, %d jobs", err, len(list.Jobs))
	}

	if err := s.establishLeadership(); err != nil {
		t.Fatal(err)
	}
	if err := s.RPC(structs.JobListRPC, &structs.JobListRequest{}, &list); err != nil || len(list.Jobs) != 1 {
		t.Fatalf("read after leadership: err %v, %d jobs", err, len(list.Jobs))
	}
}
