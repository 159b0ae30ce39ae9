package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// testServer starts a dev-mode server and waits for its leadership (a bound
// wait on a channel, not a sleep).
func testServer(t *testing.T, mod func(*Config)) *Server {
	t.Helper()
	cfg := &Config{DevMode: true, NumSchedulers: 2, Logger: hclog.NewNullLogger(), EventBufferSize: 100}
	if mod != nil {
		mod(cfg)
	}
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	t.Cleanup(func() { s.Shutdown() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.WaitForLeader(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDevServerLeaderFast(t *testing.T) {
	start := time.Now()
	s := testServer(t, nil)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("leader took %v", d)
	}
	t.Logf("dev server leader in %v", time.Since(start))
	if !s.IsLeader() || s.Leader() == "" {
		t.Fatalf("leader %v %q", s.IsLeader(), s.Leader())
	}
	var leader string
	if err := s.RPC(structs.StatusLeaderRPC, &structs.GenericRequest{}, &leader); err != nil || leader == "" {
		t.Fatalf("Status.Leader: %q %v", leader, err)
	}
	var peers []string
	if err := s.RPC(structs.StatusPeersRPC, &structs.GenericRequest{}, &peers); err != nil || len(peers) != 1 {
		t.Fatalf("Status.Peers: %v %v", peers, err)
	}
	var members structs.ServerMembersResponse
	if err := s.RPC(structs.StatusMembersRPC, &structs.GenericRequest{}, &members); err != nil || len(members.Members) != 1 {
		t.Fatalf("Status.Members: %+v %v", members, err)
	}
}

func TestConfigMultiServerNeedsSerf(t *testing.T) {
	_, err := NewServer(&Config{DataDir: t.TempDir(), RPCAddr: "127.0.0.1:0", BootstrapExpect: 3})
	if !errors.Is(err, ErrConfig) {
		t.Fatalf("want ErrConfig without a serf address, got %v", err)
	}
	if _, err := NewServer(&Config{RPCAddr: "127.0.0.1:0", BootstrapExpect: 1}); !errors.Is(err, ErrConfig) {
		t.Fatalf("missing data dir: %v", err)
	}
}

func TestRPCUnknownMethodAndBadArgs(t *testing.T) {
	s := testServer(t, nil)
	if err := s.RPC("Job.Nope", &structs.JobListRequest{}, &structs.JobListResponse{}); !errors.Is(err, ErrUnknownMethod) {
		t.Fatalf("unknown method: %v", err)
	}
	if err := s.RPC(structs.JobListRPC, &structs.NodeListRequest{}, &structs.JobListResponse{}); err == nil {
		t.Fatal("wrong arg type accepted")
	}
}

func TestJobRegisterCreatesPendingEval(t *testing.T) {
	s := testServer(t, func(c *Config) { c.NumSchedulers = 1 })
	// Stop the workers' effect: with no nodes the eval ends blocked or
	// complete; what must hold is that it was stored with the job.
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("web")}, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.EvalID == "" || resp.EvalCreateIndex == 0 || resp.JobModifyIndex != resp.EvalCreateIndex {
		t.Fatalf("reply: %+v", resp)
	}
	job, err := s.State().JobByID(nil, "default", "web")
	if err != nil || job == nil {
		t.Fatalf("job not stored: %v", err)
	}
	if job.SubmitTime == 0 || job.Version != 0 || job.JobModifyIndex != resp.JobModifyIndex {
		t.Fatalf("job: %+v", job)
	}
	ev, _ := s.State().EvalByID(nil, resp.EvalID)
	if ev == nil || ev.JobID != "web" || ev.TriggeredBy != structs.EvalTriggerJobRegister || ev.CreateIndex != resp.EvalCreateIndex {
		t.Fatalf("eval: %+v", ev)
	}

	// Re-registering a changed job bumps its version; unchanged does not.
	changed := structstest.Job("web")
	changed.TaskGroups[0].Count = 2
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: changed}, &resp); err != nil {
		t.Fatal(err)
	}
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: changed}, &resp); err != nil {
		t.Fatal(err)
	}
	if job, _ := s.State().JobByID(nil, "default", "web"); job.Version != 1 {
		t.Fatalf("version %d, want 1", job.Version)
	}
	// Enforce index mismatch: 409.
	err = s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: changed, EnforceIndex: true, JobModifyIndex: 1}, &resp)
	if code, _ := structs.ErrorCode(err); code != structs.ErrCodeConflict {
		t.Fatalf("enforce index: %v", err)
	}
}

func TestJobRegisterBadInputStoresNothing(t *testing.T) {
	s := testServer(t, nil)
	before, _ := s.State().LatestIndex(nil)
	bad := structstest.Job("bad")
	bad.TaskGroups[0].Tasks[0].Driver = "nosuch"
	invalid := structstest.Job("")
	for name, job := range map[string]*structs.Job{"unknown driver": bad, "invalid": invalid, "nil": nil} {
		var resp structs.JobRegisterResponse
		err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &resp)
		code, msg := structs.ErrorCode(err)
		if code != structs.ErrCodeBadRequest {
			t.Fatalf("%s: want 400, got %v", name, err)
		}
		t.Logf("%s: %s", name, msg)
	}
	var resp structs.JobRegisterResponse
	err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: bad}, &resp)
	if _, msg := structs.ErrorCode(err); msg == "" || !contains(msg, "unknown driver") {
		t.Fatalf("message %q", msg)
	}
	after, _ := s.State().LatestIndex(nil)
	if after != before {
		t.Fatalf("state changed: %d -> %d", before, after)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestJobDeregister(t *testing.T) {
	s := testServer(t, nil)
	var dresp structs.JobDeregisterResponse
	err := s.RPC(structs.JobDeregisterRPC, &structs.JobDeregisterRequest{JobID: "nope"}, &dresp)
	if !errors.Is(err, structs.ErrJobNotFound) {
		t.Fatalf("want ErrJobNotFound itself (in-process errors keep identity), got %v", err)
	}
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("web")}, &resp); err != nil {
		t.Fatal(err)
	}
	if err := s.RPC(structs.JobDeregisterRPC, &structs.JobDeregisterRequest{JobID: "web"}, &dresp); err != nil {
		t.Fatal(err)
	}
	job, _ := s.State().JobByID(nil, "default", "web")
	if job == nil || !job.Stop {
		t.Fatalf("job not stopped: %+v", job)
	}
	if ev, _ := s.State().EvalByID(nil, dresp.EvalID); ev == nil || ev.TriggeredBy != structs.EvalTriggerJobDeregister {
		t.Fatalf("deregister eval: %+v", ev)
	}
	if err := s.RPC(structs.JobDeregisterRPC, &structs.JobDeregisterRequest{JobID: "web", Purge: true}, &dresp); err != nil {
		t.Fatal(err)
	}
	if job, _ := s.State().JobByID(nil, "default", "web"); job != nil {
		t.Fatalf("job not purged")
	}
}

func TestBlockingJobList(t *testing.T) {
	s := testServer(t, nil)
	var first structs.JobListResponse
	if err := s.RPC(structs.JobListRPC, &structs.JobListRequest{}, &first); err != nil {
		t.Fatal(err)
	}
	if first.Index == 0 || len(first.Jobs) != 0 {
		t.Fatalf("first list: %+v", first)
	}
	type result struct {
		resp structs.JobListResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.err = s.RPC(structs.JobListRPC, &structs.JobListRequest{QueryOptions: structs.QueryOptions{
			MinQueryIndex: first.Index, MaxQueryTime: time.Minute}}, &r.resp)
		done <- r
	}()
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("web")}, &resp); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.resp.Index <= first.Index || len(r.resp.Jobs) != 1 || r.resp.Jobs[0].ID != "web" || r.resp.Jobs[0].JobSummary == nil {
		t.Fatalf("blocking list: %+v", r.resp)
	}
	// A blocking query whose time runs out answers with the current state.
	var timeout structs.JobListResponse
	err := s.RPC(structs.JobListRPC, &structs.JobListRequest{QueryOptions: structs.QueryOptions{
		MinQueryIndex: 1 << 40, MaxQueryTime: time.Millisecond}}, &timeout)
	if err != nil || len(timeout.Jobs) != 1 {
		t.Fatalf("timed-out query: %+v %v", timeout, err)
	}
}

func TestReadEndpoints(t *testing.T) {
	s := testServer(t, nil)
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("web")}, &resp); err != nil {
		t.Fatal(err)
	}
	var job structs.SingleJobResponse
	if err := s.RPC(structs.JobGetJobRPC, &structs.JobSpecificRequest{JobID: "web"}, &job); err != nil || job.Job == nil {
		t.Fatalf("GetJob: %v %v", job.Job, err)
	}
	var missing structs.SingleJobResponse
	if err := s.RPC(structs.JobGetJobRPC, &structs.JobSpecificRequest{JobID: "nope"}, &missing); err != nil || missing.Job != nil {
		t.Fatalf("GetJob missing: %v %v", missing.Job, err)
	}
	var evals structs.JobEvaluationsResponse
	if err := s.RPC(structs.JobEvaluationsRPC, &structs.JobSpecificRequest{JobID: "web"}, &evals); err != nil || len(evals.Evaluations) == 0 { // 2 once the scheduler blocked it (no nodes)
		t.Fatalf("Job.Evaluations: %d %v", len(evals.Evaluations), err)
	}
	var ev structs.SingleEvalResponse
	if err := s.RPC(structs.EvalGetEvalRPC, &structs.EvalSpecificRequest{EvalID: resp.EvalID}, &ev); err != nil || ev.Eval == nil {
		t.Fatalf("Eval.GetEval: %v", err)
	}
	var elist structs.EvalListResponse
	if err := s.RPC(structs.EvalListRPC, &structs.EvalListRequest{}, &elist); err != nil || len(elist.Evaluations) == 0 {
		t.Fatalf("Eval.List: %v", err)
	}
	var allocs structs.AllocListResponse
	if err := s.RPC(structs.AllocListRPC, &structs.AllocListRequest{}, &allocs); err != nil || allocs.Allocations == nil {
		t.Fatalf("Alloc.List: %v", err)
	}
	var nodes structs.NodeListResponse
	if err := s.RPC(structs.NodeListRPC, &structs.NodeListRequest{}, &nodes); err != nil || nodes.Nodes == nil {
		t.Fatalf("Node.List: %v", err)
	}
}

func TestJobPlanChangesNothing(t *testing.T) {
	s := testServer(t, nil)
	registerNode(t, s, "n1")
	before, _ := s.State().LatestIndex(nil)
	var plan structs.JobPlanResponse
	if err := s.RPC(structs.JobPlanRPC, &structs.JobPlanRequest{Job: structstest.Job("web"), Diff: true}, &plan); err != nil {
		t.Fatal(err)
	}
	if plan.Annotations == nil || plan.Annotations.DesiredTGUpdates["web"] == nil || plan.Annotations.DesiredTGUpdates["web"].Place != 1 {
		t.Fatalf("annotations: %+v", plan.Annotations)
	}
	if len(plan.FailedTGAllocs) != 0 || plan.Diff == nil || plan.Diff.Type != "Added" {
		t.Fatalf("plan: %+v", plan)
	}
	big := structstest.Job("big")
	big.TaskGroups[0].Tasks[0].Resources.MemoryMB = 1 << 24 // 16 TiB: valid, fits no test node
	if err := s.RPC(structs.JobPlanRPC, &structs.JobPlanRequest{Job: big}, &plan); err != nil {
		t.Fatal(err)
	}
	if plan.FailedTGAllocs["web"] == nil {
		t.Fatalf("want failed placement for a huge job: %+v", plan.FailedTGAllocs)
	}
	after, _ := s.State().LatestIndex(nil)
	if after != before {
		t.Fatalf("plan changed state: %d -> %d", before, after)
	}
}

func TestWriteBeforeLeaderWaits(t *testing.T) {
	s, err := NewServer(&Config{DevMode: true, NumSchedulers: 1, Logger: hclog.NewNullLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	// No WaitForLeader: the write holds until the election is done.
	var resp structs.NodeUpdateResponse
	if err := s.RPC(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: structstest.Node("n1")}, &resp); err != nil {
		t.Fatalf("register right after start: %v", err)
	}
}
