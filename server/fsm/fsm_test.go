package fsm

import (
	"bytes"
	"io"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

func testFSM(t *testing.T) *FSM {
	t.Helper()
	f, err := New(hclog.NewNullLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func applyMsg(t *testing.T, f *FSM, index uint64, mt structs.MessageType, msg any) any {
	t.Helper()
	buf, err := structs.Encode(mt, msg)
	if err != nil {
		t.Fatal(err)
	}
	return f.Apply(&raft.Log{Index: index, Type: raft.LogCommand, Data: buf})
}

func TestFSMApplyAndSnapshotRestore(t *testing.T) {
	f := testFSM(t)
	job := structstest.Job("web")
	job.Canonicalize()
	eval := &structs.Evaluation{ID: structs.GenerateUUID(), Namespace: "default", JobID: "web", Type: "service", Status: structs.EvalStatusPending}
	if r := applyMsg(t, f, 1, structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: job, Eval: eval}); r != nil {
		t.Fatalf("job register: %v", r)
	}
	if r := applyMsg(t, f, 2, structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: structstest.Node("n1")}); r != nil {
		t.Fatalf("node register: %v", r)
	}
	alloc := &structs.Allocation{ID: structs.GenerateUUID(), Namespace: "default", JobID: "web", NodeID: "n1", EvalID: eval.ID,
		TaskGroup: "web", DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending}
	if r := applyMsg(t, f, 3, structs.ApplyPlanResultsRequestType, &structs.ApplyPlanResultsRequest{Job: job, AllocsPlaced: []*structs.Allocation{alloc}}); r != nil {
		t.Fatalf("plan results: %v", r)
	}
	upd := &structs.Allocation{ID: alloc.ID, ClientStatus: structs.AllocClientStatusRunning}
	if r := applyMsg(t, f, 4, structs.AllocClientUpdateRequestType, &structs.AllocUpdateRequest{Alloc: []*structs.Allocation{upd}, UpdatedAt: 99}); r != nil {
		t.Fatalf("client update: %v", r)
	}
	if r := applyMsg(t, f, 5, structs.NodeUpdateStatusRequestType, &structs.NodeUpdateStatusRequest{NodeID: "n1", Status: structs.NodeStatusDown}); r != nil {
		t.Fatalf("node status: %v", r)
	}
	// An FSM error comes back as the response, not a panic.
	if r := applyMsg(t, f, 6, structs.NodeUpdateStatusRequestType, &structs.NodeUpdateStatusRequest{NodeID: "nope", Status: structs.NodeStatusDown}); r == nil {
		t.Fatal("unknown node status update: want an error response")
	}
	st := f.State()
	a, _ := st.AllocByID(nil, alloc.ID)
	if a == nil || a.ClientStatus != structs.AllocClientStatusRunning || a.ModifyTime != 99 || a.Job == nil {
		t.Fatalf("alloc: %+v", a)
	}

	snap, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil {
		t.Fatal(err)
	}
	f2 := testFSM(t)
	old := f2.State()
	if err := f2.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))); err != nil {
		t.Fatal(err)
	}
	select {
	case <-old.AbandonCh():
	default:
		t.Fatal("old store not abandoned")
	}
	st2 := f2.State()
	if j, _ := st2.JobByID(nil, "default", "web"); j == nil || j.Status != structs.JobStatusRunning {
		t.Fatalf("restored job: %+v", j)
	}
	if n, _ := st2.NodeByID(nil, "n1"); n == nil || n.Status != structs.NodeStatusDown {
		t.Fatalf("restored node: %+v", n)
	}
	if e, _ := st2.EvalByID(nil, eval.ID); e == nil {
		t.Fatal("restored eval missing")
	}
	if i1, _ := st.LatestIndex(nil); true {
		if i2, _ := st2.LatestIndex(nil); i1 != i2 {
			t.Fatalf("latest index %d vs %d", i1, i2)
		}
	}
}

func TestFSMJobDeregisterAndEvalDelete(t *testing.T) {
	f := testFSM(t)
	job := structstest.Job("web")
	job.Canonicalize()
	applyMsg(t, f, 1, structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: job})
	stop := &structs.JobDeregisterEntry{JobDeregisterRequest: structs.JobDeregisterRequest{JobID: "web",
		Eval: &structs.Evaluation{ID: "e1", Namespace: "default", JobID: "web", Status: structs.EvalStatusPending}}, Job: job.Copy()}
	stop.Namespace = "default"
	if r := applyMsg(t, f, 2, structs.JobDeregisterRequestType, stop); r != nil {
		t.Fatal(r)
	}
	if j, _ := f.State().JobByID(nil, "default", "web"); j == nil || !j.Stop {
		t.Fatalf("job not stopped: %+v", j)
	}
	if r := applyMsg(t, f, 3, structs.EvalDeleteRequestType, &structs.EvalDeleteEntry{Evals: []string{"e1"}}); r != nil {
		t.Fatal(r)
	}
	if e, _ := f.State().EvalByID(nil, "e1"); e != nil {
		t.Fatal("eval not deleted")
	}
	purge := &structs.JobDeregisterEntry{JobDeregisterRequest: structs.JobDeregisterRequest{JobID: "web", Purge: true}}
	purge.Namespace = "default"
	applyMsg(t, f, 4, structs.JobDeregisterRequestType, purge)
	if j, _ := f.State().JobByID(nil, "default", "web"); j != nil {
		t.Fatal("job not purged")
	}
}

func TestFSMUnknownMessageType(t *testing.T) {
	f := testFSM(t)
	ignorable := structs.IgnoreUnknownTypeFlag | 77
	if r := f.Apply(&raft.Log{Index: 1, Type: raft.LogCommand, Data: []byte{byte(ignorable), 0xc0}}); r != nil {
		t.Fatalf("ignorable unknown type: %v", r)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("unknown type without the ignore flag must panic")
		}
	}()
	f.Apply(&raft.Log{Index: 2, Type: raft.LogCommand, Data: []byte{77, 0xc0}})
}

type memSink struct{ bytes.Buffer }

func (s *memSink) ID() string    { return "mem" }
func (s *memSink) Cancel() error { return nil }
func (s *memSink) Close() error  { return nil }
