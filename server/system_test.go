package server

import (
	"testing"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// TestSystemJobFollowsNodes: a system job runs on every ready node, a node
// that registers later gets it through its node-update eval, and a node
// marked down has its allocation lost and not placed elsewhere.
func TestSystemJobFollowsNodes(t *testing.T) {
	s := testServer(t, nil)
	registerNode(t, s, "n1")
	registerNode(t, s, "n2")
	job := structstest.Job("logs")
	job.Type = structs.JobTypeSystem
	job.TaskGroups[0].Count = 5 // ignored
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &resp); err != nil {
		t.Fatal(err)
	}
	onNodes := func(st *state.StateStore, ws memdb.WatchSet) map[string]int {
		out := map[string]int{}
		for _, a := range runningAllocs(st, ws, "logs") {
			out[a.NodeID]++
			if a.Name != "logs.web[0]" {
				t.Errorf("alloc name %q", a.Name)
			}
		}
		return out
	}
	waitState(t, s, "one alloc on each of n1, n2", func(st *state.StateStore, ws memdb.WatchSet) bool {
		m := onNodes(st, ws)
		return len(m) == 2 && m["n1"] == 1 && m["n2"] == 1
	})

	reg := registerNode(t, s, "n3")
	if len(reg.EvalIDs) != 1 {
		t.Fatalf("register n3: evals %v, want one node-update eval for the system job", reg.EvalIDs)
	}
	ev, err := s.State().EvalByID(nil, reg.EvalIDs[0])
	if err != nil || ev == nil || ev.TriggeredBy != structs.EvalTriggerNodeUpdate || ev.NodeID != "n3" || ev.JobID != "logs" {
		t.Fatalf("eval of n3: %+v %v", ev, err)
	}
	waitState(t, s, "an alloc on n3", func(st *state.StateStore, ws memdb.WatchSet) bool {
		m := onNodes(st, ws)
		return len(m) == 3 && m["n3"] == 1
	})

	var down structs.NodeUpdateResponse
	req := &structs.NodeUpdateStatusRequest{NodeID: "n2", SecretID: "secret-n2", Status: structs.NodeStatusDown}
	if err := s.RPC(structs.NodeUpdateStatusRPC, req, &down); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "n2's alloc lost, not moved", func(st *state.StateStore, ws memdb.WatchSet) bool {
		allocs, _ := st.AllocsByJob(ws, "default", "logs")
		lost := 0
		for _, a := range allocs {
			if a.NodeID == "n2" && a.ClientStatus == structs.AllocClientStatusLost {
				lost++
			}
		}
		m := onNodes(st, ws)
		return lost == 1 && len(m) == 2 && m["n1"] == 1 && m["n3"] == 1
	})
}
