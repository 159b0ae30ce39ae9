package server

import (
	"slices"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// Job.Plan with WhyNotNode returns the node's whole verdict per group, and
// rejects an unknown node or group.
func TestJobPlanWhyNotNode(t *testing.T) {
	s := testServer(t, nil)
	registerNode(t, s, "node-1")
	job := structstest.Job("web")
	job.Datacenters = []string{"dc9"}
	job.TaskGroups[0].Tasks[0].Resources.MemoryMB = 100000
	extra := &structs.TaskGroup{Name: "small", Count: 1, Tasks: []*structs.Task{{Name: "t", Driver: "raw_exec",
		Config: map[string]any{"command": "/bin/true"}, Resources: &structs.Resources{CPU: 100, MemoryMB: 64}}}}
	job.TaskGroups = append(job.TaskGroups, extra)
	before, _ := s.State().LatestIndex(nil)

	var plan structs.JobPlanResponse
	if err := s.RPC(structs.JobPlanRPC, &structs.JobPlanRequest{Job: job, WhyNotNode: "node"}, &plan); err != nil {
		t.Fatal(err)
	}
	web := plan.NodeVerdicts["web"]
	if len(plan.NodeVerdicts) != 2 || web == nil || plan.NodeVerdicts["small"] == nil {
		t.Fatalf("verdicts %+v", plan.NodeVerdicts)
	}
	wantFail := []string{`datacenter "dc1" not in the job's datacenters [dc9]`}
	wantExh := []string{"memory: asks 100000 MB, 8192 MB free of 8192 MB"}
	if web.NodeID != "node-1" || web.Feasible || web.Fits || !slices.Equal(web.Failures, wantFail) || !slices.Equal(web.Exhausted, wantExh) {
		t.Errorf("web verdict %+v", web)
	}
	if small := plan.NodeVerdicts["small"]; !small.Fits || small.Feasible {
		t.Errorf("small verdict %+v", small)
	}

	plan = structs.JobPlanResponse{}
	if err := s.RPC(structs.JobPlanRPC, &structs.JobPlanRequest{Job: job, WhyNotNode: "node-1", WhyNotGroup: "small"}, &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.NodeVerdicts) != 1 || plan.NodeVerdicts["small"] == nil {
		t.Errorf("one group: %+v", plan.NodeVerdicts)
	}
	for _, req := range []structs.JobPlanRequest{{Job: job, WhyNotNode: "zzz"}, {Job: job, WhyNotNode: "node-1", WhyNotGroup: "nope"}} {
		err := s.RPC(structs.JobPlanRPC, &req, &structs.JobPlanResponse{})
		if code, msg := structs.ErrorCode(err); err == nil || code != structs.ErrCodeBadRequest || !strings.Contains(msg, "why-not-node") {
			t.Errorf("%s/%s: %v", req.WhyNotNode, req.WhyNotGroup, err)
		}
	}
	if after, _ := s.State().LatestIndex(nil); after != before {
		t.Errorf("plan changed state: %d -> %d", before, after)
	}
}
