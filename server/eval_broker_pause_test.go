package server

import (
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// until polls cond until it holds (a deadline guards a hang; nothing is
// asserted about how long it takes).
func untilTrue(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}

func setPause(t *testing.T, s *Server, paused bool) {
	t.Helper()
	cfg := *structs.DefaultSchedulerConfiguration()
	cfg.PauseEvalBroker = paused
	var r structs.SchedulerSetConfigurationResponse
	if err := s.RPC(structs.OperatorSchedulerSetConfigurationRPC, &structs.SchedulerSetConfigRequest{Config: cfg}, &r); err != nil {
		t.Fatal(err)
	}
}

// TestEvalBrokerPauseAndEvalDelete: PauseEvalBroker disables the leader's
// broker (evals stay pending and may be deleted), unpausing re-enqueues
// the pending ones.
func TestEvalBrokerPauseAndEvalDelete(t *testing.T) {
	s := testServer(t, func(c *Config) { c.NumSchedulers = 1 })
	del := func(req *structs.EvalDeleteRequest) (*structs.EvalDeleteResponse, error) {
		var r structs.EvalDeleteResponse
		return &r, s.RPC(structs.EvalDeleteRPC, req, &r)
	}
	register := func(id string) string {
		var r structs.JobRegisterResponse
		if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job(id)}, &r); err != nil {
			t.Fatal(err)
		}
		return r.EvalID
	}
	status := func(id string) string {
		ev, _ := s.State().EvalByID(nil, id)
		if ev == nil {
			return "gone"
		}
		return ev.Status
	}

	if _, err := del(&structs.EvalDeleteRequest{EvalIDs: []string{"x"}}); !hasCode(err, structs.ErrCodeBadRequest, "must be paused") {
		t.Fatalf("delete with the broker running: %v", err)
	}
	setPause(t, s, true)
	untilTrue(t, "the broker disabled", func() bool { return !s.broker.Enabled() })

	a, b, c := register("a"), register("b"), register("c")
	for _, id := range []string{a, b, c} {
		if st := status(id); st != structs.EvalStatusPending {
			t.Fatalf("eval %s is %s while paused", id, st)
		}
	}
	if r, err := del(&structs.EvalDeleteRequest{EvalIDs: []string{a}}); err != nil || r.Count != 1 || r.Index == 0 || status(a) != "gone" {
		t.Fatalf("delete by ID: %+v, %v, status %s", r, err, status(a))
	}
	if r, err := del(&structs.EvalDeleteRequest{Filter: `JobID == "b"`}); err != nil || r.Count != 1 || status(b) != "gone" || status(c) == "gone" {
		t.Fatalf("delete by filter: %+v, %v", r, err)
	}
	for _, tc := range []struct {
		req  structs.EvalDeleteRequest
		code int
		msg  string
	}{
		{structs.EvalDeleteRequest{}, 400, "either ID or filter"},
		{structs.EvalDeleteRequest{EvalIDs: []string{c}, Filter: "x"}, 400, "both"},
		{structs.EvalDeleteRequest{EvalIDs: []string{"00000000-0000-4000-8000-000000000000"}}, 404, "not found"},
		{structs.EvalDeleteRequest{Filter: "JobID =="}, 400, "invalid filter"},
	} {
		if _, err := del(&tc.req); !hasCode(err, tc.code, tc.msg) {
			t.Errorf("%+v: %v, want %d %q", tc.req, err, tc.code, tc.msg)
		}
	}

	// Unpaused: c, pending all along, is scheduled (no nodes: it ends
	// complete or blocked, not pending).
	setPause(t, s, false)
	untilTrue(t, "c scheduled", func() bool { st := status(c); return st != structs.EvalStatusPending })
	if !s.broker.Enabled() {
		t.Fatal("broker still disabled")
	}
}

func hasCode(err error, code int, msg string) bool {
	c, m := structs.ErrorCode(err)
	return err != nil && c == code && strings.Contains(m, msg)
}
