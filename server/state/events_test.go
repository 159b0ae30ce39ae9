package state

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// eventLog records what the store publishes.
type eventLog struct{ batches []structs.Events }

func (l *eventLog) Publish(index uint64, evs []structs.Event) {
	l.batches = append(l.batches, structs.Events{Index: index, Events: evs})
}

// last returns the last batch's events as "Topic/Type/Key" and checks its
// index.
func (l *eventLog) last(t *testing.T, index uint64) []string {
	t.Helper()
	if len(l.batches) == 0 {
		t.Fatalf("no events published, want a batch at %d", index)
	}
	b := l.batches[len(l.batches)-1]
	if b.Index != index {
		t.Fatalf("last batch at index %d, want %d", b.Index, index)
	}
	var out []string
	for _, e := range b.Events {
		if e.Index != index {
			t.Errorf("event %s/%s has index %d in batch %d", e.Topic, e.Type, e.Index, index)
		}
		out = append(out, string(e.Topic)+"/"+e.Type+"/"+e.Key)
	}
	slices.Sort(out)
	return out
}

func wantEvents(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: events\n  %v\nwant\n  %v", what, got, want)
	}
}

func TestStoreEmitsEventsOfCommittedWrites(t *testing.T) {
	s := testStore(t)
	log := &eventLog{}
	s.SetEventPublisher(log)

	node := structstest.Node("n1")
	node.SecretID = "node-secret"
	if err := s.UpsertNode(5, node); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "node register", log.last(t, 5), "Node/NodeRegistration/n1")

	job := testJob("web")
	eval := testEval(job, structs.EvalStatusPending)
	if err := s.UpsertJob(10, job, eval); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "job register", log.last(t, 10), "Job/JobRegistered/web", "Evaluation/JobRegistered/"+eval.ID)
	ev := log.batches[len(log.batches)-1].Events
	for _, e := range ev {
		if e.Topic == structs.TopicEvaluation && !slices.Equal(e.FilterKeys, []string{"web"}) {
			t.Fatalf("eval filter keys %v, want the job ID", e.FilterKeys)
		}
		if e.Namespace != "default" {
			t.Fatalf("%s event in namespace %q", e.Topic, e.Namespace)
		}
	}

	alloc := testAlloc(job, "n1", eval.ID)
	alloc.DeploymentID = "d1"
	if err := s.UpsertPlanResults(11, &structs.ApplyPlanResultsRequest{Job: job, AllocsPlaced: []*structs.Allocation{alloc}, EvalID: eval.ID}); err != nil {
		t.Fatal(err)
	}
	got := log.last(t, 11)
	if !slices.Contains(got, "Allocation/PlanResult/"+alloc.ID) {
		t.Fatalf("plan apply: events %v, want Allocation/PlanResult/%s", got, alloc.ID)
	}
	for _, e := range log.batches[len(log.batches)-1].Events {
		if e.Topic == structs.TopicAllocation && !slices.Equal(e.FilterKeys, []string{"web", "d1"}) {
			t.Fatalf("alloc filter keys %v, want job and deployment IDs", e.FilterKeys)
		}
	}

	upd := *alloc
	upd.ClientStatus = structs.AllocClientStatusRunning
	if err := s.UpdateAllocsFromClient(12, []*structs.Allocation{&upd}, nil); err != nil {
		t.Fatal(err)
	}
	got = log.last(t, 12)
	if !slices.Contains(got, "Allocation/AllocationUpdated/"+alloc.ID) {
		t.Fatalf("client update: events %v", got)
	}
	// The payload is the stored allocation, encoded without its job.
	for _, e := range log.batches[len(log.batches)-1].Events {
		if e.Topic != structs.TopicAllocation {
			continue
		}
		b, err := json.Marshal(e.Payload)
		if err != nil {
			t.Fatal(err)
		}
		var p struct{ Allocation map[string]any }
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		if p.Allocation["ClientStatus"] != "running" || p.Allocation["Job"] != nil {
			t.Fatalf("alloc payload: %s", b)
		}
	}

	if err := s.DeleteJob(13, "default", "web", nil); err != nil {
		t.Fatal(err)
	}
	got = log.last(t, 13)
	if !slices.Contains(got, "Job/JobDeregistered/web") {
		t.Fatalf("purge: events %v", got)
	}
	if p := log.batches[len(log.batches)-1].Events[0].Payload.(*structs.JobEvent); !p.Deleted {
		t.Fatalf("purged job payload not Deleted: %+v", p)
	}

	if err := s.DeleteNode(14, "n1"); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "node deregister", log.last(t, 14), "Node/NodeDeregistration/n1")
	b, _ := json.Marshal(log.batches[len(log.batches)-1].Events[0].Payload)
	if strings.Contains(string(b), "node-secret") {
		t.Fatalf("node payload carries its secret: %s", b)
	}
}

func TestNodeUpdatesAreNamedByWhatChanged(t *testing.T) {
	s := testStore(t)
	log := &eventLog{}
	s.SetEventPublisher(log)
	if err := s.UpsertNode(5, structstest.Node("n1")); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateNodeEligibility(6, "n1", structs.NodeSchedulingIneligible, nil, 0); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "eligibility", log.last(t, 6), "Node/NodeEligibility/n1")
	if err := s.UpdateNodeDrain(7, "n1", &structs.DrainStrategy{}, false, nil, 0); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "drain", log.last(t, 7), "Node/NodeDrain/n1", "NodeDrain/NodeDrain/n1")
	if err := s.UpdateNodeStatus(8, "n1", structs.NodeStatusDown, 0); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "status", log.last(t, 8), "Node/NodeEvent/n1")
}

func TestACLTokenEventsNeverCarryTheSecret(t *testing.T) {
	s := testStore(t)
	log := &eventLog{}
	s.SetEventPublisher(log)
	tok := &structs.ACLToken{AccessorID: "acc", SecretID: "very-secret", Name: "t", Type: "client"}
	if err := s.UpsertACLTokens(5, []*structs.ACLToken{tok}); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, "token", log.last(t, 5), "ACLToken/ACLTokenUpserted/acc")
	b, err := json.Marshal(log.batches[0].Events[0].Payload)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "very-secret") || !strings.Contains(string(b), `"AccessorID":"acc"`) {
		t.Fatalf("token payload: %s", b)
	}
	if stored, _ := s.ACLTokenByAccessorID(nil, "acc"); stored == nil || stored.SecretID != "very-secret" {
		t.Fatalf("encoding the payload changed the stored token: %+v", stored)
	}
}

func TestNoPublisherNoTracking(t *testing.T) {
	s := testStore(t)
	txn := s.writeTxn()
	tracked := txn.Changes() != nil
	txn.Abort()
	if tracked {
		t.Fatal("changes tracked without a publisher")
	}
	job := testJob("web")
	if err := s.UpsertJob(10, job, nil); err != nil {
		t.Fatal(err)
	}
}
