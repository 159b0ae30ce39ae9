package scheduler_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// cluster drives a store through random jobs and node failures.
type cluster struct {
	store *schedulertest.Store
	jobs  []*structs.Job
	last  map[string]*structs.Evaluation // newest processed eval per job
	n     int
}

func (c *cluster) eval(t *rapid.T, job *structs.Job, trigger string) {
	c.n++
	c.store.UpsertEval(schedulertest.Eval(fmt.Sprintf("e%d", c.n), job, trigger))
}

func (c *cluster) processAll(t *rapid.T) {
	for _, e := range c.store.Evals() {
		if e.Status != structs.EvalStatusPending {
			continue
		}
		s, err := scheduler.New(e.Type, scheduler.Config{State: c.store, Planner: c.store, Now: fixedNow})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Process(e.Copy()); err != nil {
			t.Fatalf("process %s: %v", e.ID, err)
		}
		c.last[e.JobID] = c.store.Eval(e.ID)
	}
}

// check holds the invariants: no node is over-committed, no plan was
// rejected (nothing races the scheduler here, so its own fit check must
// agree with the applier's), no live alloc sits on a down node, and each
// group's live allocs plus what its last eval left queued equal its count.
func (c *cluster) check(t *rapid.T) {
	for i, r := range c.store.Results {
		if len(r.RejectedNodes) > 0 {
			t.Fatalf("plan %d rejected on %v", i, r.RejectedNodes)
		}
	}
	nodes, _ := c.store.Nodes()
	for _, n := range nodes {
		allocs, _ := c.store.AllocsByNode(n.ID)
		if fit, dim, used := structs.AllocsFit(n, allocs); !fit {
			t.Fatalf("node %s over-committed on %s: %+v of %+v", n.ID, dim, used, n.Comparable())
		}
		for _, a := range allocs {
			if n.Status == structs.NodeStatusDown && !a.TerminalStatus() {
				t.Fatalf("live alloc %s on down node %s", a.Name, n.ID)
			}
		}
	}
	for _, j := range c.jobs {
		allocs, _ := c.store.AllocsByJob(j.Namespace, j.ID)
		live := 0
		for _, a := range allocs {
			if !a.TerminalStatus() {
				live++
			}
		}
		queued := c.last[j.ID].QueuedAllocations[j.ID]
		if want := j.TaskGroups[0].Count; live+queued != want {
			t.Fatalf("job %s: %d live + %d queued != count %d", j.ID, live, queued, want)
		}
	}
}

func genCluster(t *rapid.T, ample bool) *cluster {
	c := &cluster{store: schedulertest.NewStore(), last: map[string]*structs.Evaluation{}}
	nJobs := rapid.IntRange(1, 5).Draw(t, "jobs")
	var cpuSum, memSum int64
	for i := range nJobs {
		typ := rapid.SampledFrom([]string{structs.JobTypeService, structs.JobTypeBatch}).Draw(t, "type")
		count := rapid.IntRange(0, 10).Draw(t, "count")
		cpu := rapid.IntRange(50, 2000).Draw(t, "cpu")
		mem := rapid.IntRange(32, 4096).Draw(t, "mem")
		j := schedulertest.Job(fmt.Sprintf("job%d", i), typ, 1, cpu, mem)
		j.TaskGroups[0].Count = count // after Canonicalize, so 0 stays 0
		c.jobs = append(c.jobs, j)
		cpuSum += int64(count * cpu)
		memSum += int64(count * mem)
	}
	nNodes := rapid.IntRange(1, 20).Draw(t, "nodes")
	for i := range nNodes {
		cpu := int64(rapid.IntRange(500, 8000).Draw(t, "node_cpu"))
		mem := int64(rapid.IntRange(512, 16384).Draw(t, "node_mem"))
		if ample { // every node alone could take every job
			cpu, mem = cpu+cpuSum, mem+memSum
		}
		c.store.UpsertNode(schedulertest.Node(fmt.Sprintf("n%02d", i), "dc1", cpu, mem))
	}
	for _, j := range c.jobs {
		c.store.UpsertJob(j)
		c.eval(t, j, structs.EvalTriggerJobRegister)
	}
	return c
}

func TestPropertyNoOvercommit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCluster(t, false)
		c.processAll(t)
		c.check(t)
		for range rapid.IntRange(0, 4).Draw(t, "rounds") {
			if rapid.Bool().Draw(t, "scale") {
				j := rapid.SampledFrom(c.jobs).Draw(t, "job").Copy()
				j.TaskGroups[0].Count = rapid.IntRange(0, 12).Draw(t, "new_count")
				c.store.UpsertJob(j)
				c.replaceJob(j)
				c.eval(t, j, structs.EvalTriggerJobRegister)
			} else {
				nodes, _ := c.store.Nodes()
				n := *rapid.SampledFrom(nodes).Draw(t, "down")
				n.Status = structs.NodeStatusDown
				c.store.UpsertNode(&n)
				for _, j := range c.jobs {
					c.eval(t, j, structs.EvalTriggerNodeUpdate)
				}
			}
			c.processAll(t)
			c.check(t)
		}
	})
}

func (c *cluster) replaceJob(j *structs.Job) {
	for i, old := range c.jobs {
		if old.ID == j.ID {
			c.jobs[i] = j
		}
	}
}

func TestPropertyAllPlacedWhenCapacityAllows(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCluster(t, true)
		c.processAll(t)
		c.check(t)
		for _, j := range c.jobs {
			if e := c.last[j.ID]; e.QueuedAllocations[j.ID] != 0 || len(e.FailedTGAllocs) != 0 {
				t.Fatalf("job %s: queued %v failed %v with ample capacity", j.ID, e.QueuedAllocations, e.FailedTGAllocs)
			}
		}
	})
}
