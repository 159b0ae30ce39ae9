package scheduler_test

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// TestSystemProperties drives a system or sysbatch job through random node
// joins, failures, eligibility changes, job updates and task endings, and
// after every round of evals checks: each node holds at most one live alloc
// of the group; none on a down node; a ready, eligible node with room
// (nothing else runs there) holds one live alloc, or for sysbatch one that
// finished with the current version; a sysbatch alloc that finished is never
// followed by another on its node for the same version; no node is
// over-committed.
func TestSystemProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := rapid.SampledFrom([]string{structs.JobTypeSystem, structs.JobTypeSysBatch}).Draw(t, "type")
		s := schedulertest.NewStore()
		job := schedulertest.Job("sys", typ, 1, rapid.IntRange(100, 3000).Draw(t, "cpu"), 128)
		s.UpsertJob(job)
		n := 0
		evalFor := func(trigger, node string) {
			n++
			e := schedulertest.Eval(fmt.Sprintf("e%d", n), job, trigger)
			e.NodeID = node
			s.UpsertEval(e)
		}
		evalFor(structs.EvalTriggerJobRegister, "")
		nodes := 0
		for range rapid.IntRange(1, 25).Draw(t, "steps") {
			systemStep(t, s, &job, &nodes, evalFor)
			for _, e := range s.Evals() {
				if e.Status != structs.EvalStatusPending && e.Status != structs.EvalStatusBlocked {
					continue
				}
				sched, err := scheduler.New(typ, scheduler.Config{State: s, Planner: s, Now: func() time.Time { return epoch }})
				if err != nil {
					t.Fatal(err)
				}
				if err := sched.Process(e.Copy()); err != nil {
					t.Fatal(err)
				}
			}
			checkSystem(t, s, job)
		}
	})
}

// systemStep applies one random change and creates the eval the server would.
func systemStep(t *rapid.T, s *schedulertest.Store, job **structs.Job, nodes *int, evalFor func(trigger, node string)) {
	all, _ := s.Nodes()
	action := rapid.IntRange(0, 5).Draw(t, "action")
	if len(all) == 0 {
		action = 0
	}
	switch action {
	case 0: // a node joins
		*nodes++
		id := fmt.Sprintf("n%d", *nodes)
		s.UpsertNode(schedulertest.Node(id, "dc1", int64(rapid.IntRange(500, 4000).Draw(t, "node_cpu")), 4096))
		evalFor(structs.EvalTriggerNodeUpdate, id)
	case 1, 2: // a node changes status or eligibility
		old := rapid.SampledFrom(all).Draw(t, "node")
		n := old.Copy()
		switch rapid.IntRange(0, 2).Draw(t, "change") {
		case 0:
			n.Status = structs.NodeStatusDown
		case 1:
			n.Status = structs.NodeStatusReady
		default:
			n.SchedulingEligibility = rapid.SampledFrom([]string{structs.NodeSchedulingEligible, structs.NodeSchedulingIneligible}).Draw(t, "elig")
		}
		s.UpsertNode(n)
		evalFor(structs.EvalTriggerNodeUpdate, n.ID)
	case 3: // the job's tasks change
		j := (*job).Copy()
		j.TaskGroups[0].Tasks[0].Env = map[string]string{"V": fmt.Sprint(j.Version + 1)}
		s.UpsertJob(j)
		*job = j
		evalFor(structs.EvalTriggerJobRegister, "")
	default: // a live alloc ends
		var live []*structs.Allocation
		for _, a := range s.Allocs() {
			if !a.TerminalStatus() {
				live = append(live, a)
			}
		}
		if len(live) == 0 {
			return
		}
		a := rapid.SampledFrom(live).Draw(t, "alloc").Copy()
		a.ClientStatus = rapid.SampledFrom([]string{structs.AllocClientStatusComplete, structs.AllocClientStatusFailed}).Draw(t, "end")
		s.UpsertAllocs(a)
		evalFor(structs.EvalTriggerRetryFailedAlloc, "")
	}
}

func checkSystem(t *rapid.T, s *schedulertest.Store, job *structs.Job) {
	nodes, _ := s.Nodes()
	ask := job.TaskGroups[0].Tasks[0].Resources.CPU
	for _, n := range nodes {
		allocs, _ := s.AllocsByNode(n.ID)
		if fit, dim, _ := structs.AllocsFit(n, allocs); !fit {
			t.Fatalf("node %s over-committed on %s", n.ID, dim)
		}
		live, done := 0, 0
		for _, a := range allocs {
			switch {
			case !a.TerminalStatus():
				live++
			case a.ClientStatus == structs.AllocClientStatusComplete || a.ClientStatus == structs.AllocClientStatusFailed:
				if a.Job.Version == job.Version || a.Job.JobModifyIndex == job.JobModifyIndex {
					done++
				}
			}
		}
		if live > 1 || (n.Status == structs.NodeStatusDown && live > 0) {
			t.Fatalf("node %s (%s): %d live allocs", n.ID, n.Status, live)
		}
		if job.Type == structs.JobTypeSysBatch && done > 0 && live > 0 {
			t.Fatalf("node %s: sysbatch alloc run again after it finished", n.ID)
		}
		room := n.NodeResources.Cpu.CpuShares >= int64(ask)
		if n.Ready() && room && live == 0 && (job.Type == structs.JobTypeSystem || done == 0) {
			t.Fatalf("node %s is ready with room but runs nothing: %+v", n.ID, allocs)
		}
	}
}
