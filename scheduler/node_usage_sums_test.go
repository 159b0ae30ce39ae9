package scheduler_test

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// listingState hides the store's per-node sums (scheduler.NodeUsageState):
// the scheduler then lists and adds each node's allocations.
type listingState struct{ *schedulertest.Store }

func (l listingState) NodeLiveUsage() {} // shadows the store's: no longer a NodeUsageState
func (l listingState) AllocByID()     {}

var (
	_ scheduler.NodeUsageState = (*schedulertest.Store)(nil)
	_ scheduler.State          = listingState{}
)

// placements is a plan's placements as node -> sorted alloc names, and
// its stops as node -> sorted alloc IDs.
func placements(p *structs.Plan) string {
	var out []string
	for node, as := range p.NodeAllocation {
		var names []string
		for _, a := range as {
			names = append(names, a.Name+"/"+a.ID[:0])
		}
		slices.Sort(names)
		out = append(out, fmt.Sprintf("%s: %v", node, names))
	}
	for node, as := range p.NodeUpdate {
		var ids []string
		for _, a := range as {
			ids = append(ids, a.ID)
		}
		slices.Sort(ids)
		out = append(out, fmt.Sprintf("%s stops: %v", node, ids))
	}
	slices.Sort(out)
	return fmt.Sprint(out)
}

// TestNodeUsageSumsPlaceAsListing: on random clusters partly filled by
// other jobs, some of whose allocations finished, a job places exactly as
// it does when the scheduler adds up each node's allocations itself: the
// state's sums (the server's node_usage table) change the cost, never the
// plan. The updated job covers allocations replaced on their node.
func TestNodeUsageSumsPlaceAsListing(t *testing.T) {
	for seed := int64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewSource(seed))
		s := schedulertest.NewStore()
		for i := range 20 + r.Intn(30) {
			s.UpsertNode(schedulertest.Node(fmt.Sprintf("n%02d", i), "dc1", int64(2000+r.Intn(6000)), int64(2048+r.Intn(8192))))
		}
		for f := range 3 {
			job := schedulertest.Job(fmt.Sprintf("filler%d", f), structs.JobTypeService, 5+r.Intn(30), 100+r.Intn(900), 128+r.Intn(900))
			s.UpsertJob(job)
			sched, err := scheduler.New(job.Type, scheduler.Config{State: s, Planner: s, Now: benchNow})
			if err != nil {
				t.Fatal(err)
			}
			if err := sched.Process(schedulertest.Eval(fmt.Sprintf("fe%d", f), job, structs.EvalTriggerJobRegister)); err != nil {
				t.Fatal(err)
			}
		}
		var done []*structs.Allocation
		for _, a := range s.Allocs() {
			if r.Intn(4) == 0 {
				c := *a
				c.ClientStatus = structs.AllocClientStatusComplete
				done = append(done, &c)
			}
		}
		s.UpsertAllocs(done...)
		jobs := []*structs.Job{schedulertest.Job("target", []string{structs.JobTypeService, structs.JobTypeBatch}[r.Intn(2)],
			10+r.Intn(80), 200+r.Intn(1500), 256+r.Intn(2048))}
		updated := schedulertest.Job("filler0", structs.JobTypeService, 5+r.Intn(30), 100+r.Intn(900), 128+r.Intn(900))
		updated.Version, updated.JobModifyIndex = 1, 1000
		jobs = append(jobs, updated)
		for _, job := range jobs {
			s.UpsertJob(job)
			eval := schedulertest.Eval("e-"+job.ID, job, structs.EvalTriggerJobRegister)
			var got [2]string
			for i, st := range []scheduler.State{s, listingState{s}} {
				h := &scheduler.Harness{}
				sched, err := scheduler.New(job.Type, scheduler.Config{State: st, Planner: h, Now: benchNow})
				if err != nil {
					t.Fatal(err)
				}
				if err := sched.Process(eval.Copy()); err != nil {
					t.Fatal(err)
				}
				if len(h.Plans) == 0 {
					t.Fatalf("seed %d job %s: no plan", seed, job.ID)
				}
				got[i] = placements(h.Plans[0])
			}
			if got[0] != got[1] {
				t.Fatalf("seed %d job %s: with the state's sums\n%s\nadding allocations up\n%s", seed, job.ID, got[0], got[1])
			}
			if got[0] == "[]" {
				t.Fatalf("seed %d job %s: the plan places and stops nothing", seed, job.ID)
			}
		}
	}
}
