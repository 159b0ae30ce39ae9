package fsm

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// TestFSMGCReap: the reap entry (type 110) purges a dead job with its
// evaluation and allocation and keeps a running one; the reconcile entry
// (type 111) applies.
func TestFSMGCReap(t *testing.T) {
	f := testFSM(t)
	register := func(index uint64, id, client string) *structs.Allocation {
		job := structstest.Job(id)
		job.Type = structs.JobTypeBatch
		job.Canonicalize()
		eval := &structs.Evaluation{ID: id + "-eval", Namespace: job.Namespace, JobID: id, Type: job.Type, Status: structs.EvalStatusComplete}
		if r := applyMsg(t, f, index, structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: job, Eval: eval}); r != nil {
			t.Fatalf("register %s: %v", id, r)
		}
		a := &structs.Allocation{ID: id + "-alloc", Namespace: job.Namespace, JobID: id, Job: job, EvalID: eval.ID, NodeID: "n1",
			TaskGroup: "web", DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: client}
		if r := applyMsg(t, f, index+1, structs.AllocUpdateRequestType, &structs.AllocUpdateRequest{Alloc: []*structs.Allocation{a}}); r != nil {
			t.Fatalf("alloc %s: %v", id, r)
		}
		return a
	}
	register(1, "done", structs.AllocClientStatusComplete)
	register(3, "busy", structs.AllocClientStatusRunning)
	r := applyMsg(t, f, 5, structs.GCReapRequestType, &structs.GCReapRequest{
		Jobs:   []structs.NamespacedID{{Namespace: "default", ID: "done"}, {Namespace: "default", ID: "busy"}},
		Allocs: []string{"busy-alloc"},
	})
	resp, ok := r.(*structs.GCReapResponse)
	if !ok || *resp != (structs.GCReapResponse{Jobs: 1, Evals: 1, Allocs: 1}) {
		t.Fatalf("reap response %#v, want the done job with its eval and alloc", r)
	}
	st := f.State()
	if j, _ := st.JobByID(nil, "default", "done"); j != nil {
		t.Error("done job kept")
	}
	if a, _ := st.AllocByID(nil, "busy-alloc"); a == nil {
		t.Error("running alloc deleted")
	}
	if r := applyMsg(t, f, 6, structs.JobSummaryReconcileRequestType, &structs.JobSummaryReconcileRequest{}); r != nil {
		t.Fatalf("reconcile: %v", r)
	}
}
