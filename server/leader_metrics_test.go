package server

import (
	"fmt"
	"testing"

	"github.com/nomadish/nomadish/internal/telemetry"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

func batchJob(id string) *structs.Job {
	j := structstest.Job(id)
	j.Type, j.Namespace = structs.JobTypeBatch, "default"
	return j
}

func alloc(id string, j *structs.Job, status string) *structs.Allocation {
	return &structs.Allocation{ID: id, Namespace: j.Namespace, JobID: j.ID, Job: j, TaskGroup: "web", NodeID: "n1", EvalID: "e0",
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: status}
}

// publishJobSummaries: per job and group, allocations by client status and
// what blocked evals queue; a job that died after deadSince is published,
// one dead before it is not.
func TestPublishJobSummaries(t *testing.T) {
	tel, err := telemetry.New(telemetry.Config{FilterDefault: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Close()
	st, err := state.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	live, oldDead, newDead := batchJob("pjs-live"), batchJob("pjs-old-dead"), batchJob("pjs-new-dead")
	dispatched := batchJob("pjs-dispatched")
	dispatched.Dispatched, dispatched.ParentID = true, "pjs-parent"
	for i, j := range []*structs.Job{live, oldDead, newDead, dispatched} {
		if err := st.UpsertJob(uint64(10+i), j, nil); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(st.UpsertAllocs(20, []*structs.Allocation{
		alloc("a1", live, structs.AllocClientStatusRunning), alloc("a2", live, structs.AllocClientStatusFailed),
		alloc("a3", oldDead, structs.AllocClientStatusComplete), alloc("a5", dispatched, structs.AllocClientStatusRunning),
	}))
	must(st.UpsertEvals(21, []*structs.Evaluation{{ID: "e1", Namespace: "default", JobID: live.ID, Type: structs.JobTypeBatch,
		Status: structs.EvalStatusBlocked, QueuedAllocations: map[string]int{"web": 2}}}))
	must(st.UpsertAllocs(30, []*structs.Allocation{alloc("a4", newDead, structs.AllocClientStatusComplete)}))

	snap := st.Snapshot()
	for _, j := range []*structs.Job{oldDead, newDead} {
		got, err := snap.JobByID(nil, j.Namespace, j.ID)
		if err != nil || got.Status != structs.JobStatusDead {
			t.Fatalf("%s: %+v, %v (the test wants it dead)", j.ID, got, err)
		}
	}
	if err := publishJobSummaries(snap, 25, true); err != nil {
		t.Fatal(err)
	}
	sum, err := tel.Summary()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float32{}
	for _, g := range sum.Gauges {
		if g.DisplayLabels["task_group"] == "web" && g.DisplayLabels["namespace"] == "default" {
			got[g.DisplayLabels["job"]+" "+g.Name] = g.Value
		}
	}
	for key, want := range map[string]float32{
		"pjs-live nomad.nomad.job_summary.running":      1,
		"pjs-live nomad.nomad.job_summary.failed":       1,
		"pjs-live nomad.nomad.job_summary.queued":       2,
		"pjs-live nomad.nomad.job_summary.complete":     0,
		"pjs-new-dead nomad.nomad.job_summary.complete": 1,
	} {
		if v, ok := got[key]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", key, v, ok, want)
		}
	}
	if _, ok := got["pjs-old-dead nomad.nomad.job_summary.complete"]; ok {
		t.Errorf("a job dead before deadSince was published: %v", got)
	}
	if _, ok := got["pjs-dispatched nomad.nomad.job_summary.running"]; ok {
		t.Errorf("a dispatched job was published with skipDispatched: %v", got)
	}
}

// BenchmarkPublishJobSummaries is one leader round of job summary gauges
// over 10,000 live one-allocation jobs, with the in-memory and Prometheus
// sinks attached (what collection_interval costs a big cluster's leader).
func BenchmarkPublishJobSummaries(b *testing.B) {
	tel, err := telemetry.New(telemetry.Config{FilterDefault: true, PrometheusMetrics: true})
	if err != nil {
		b.Fatal(err)
	}
	defer tel.Close()
	st, err := state.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	var allocs []*structs.Allocation
	for i := range 10000 {
		j := batchJob(fmt.Sprintf("bench-%d", i))
		if err := st.UpsertJob(uint64(10+i), j, nil); err != nil {
			b.Fatal(err)
		}
		allocs = append(allocs, alloc(fmt.Sprintf("a-%d", i), j, structs.AllocClientStatusRunning))
	}
	if err := st.UpsertAllocs(20000, allocs); err != nil {
		b.Fatal(err)
	}
	snap := st.Snapshot()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := publishJobSummaries(snap, 0, false); err != nil {
			b.Fatal(err)
		}
	}
}
