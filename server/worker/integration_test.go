package worker_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/server/broker"
	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/server/worker"
	"github.com/nomadish/nomadish/structs"
)

// cluster is a tiny thread-safe state store with frozen snapshots: the
// plan applier's StateSource and Committer, the workers' StateWaiter and
// EvalWriter.
type cluster struct {
	mu      sync.Mutex // guards every field
	index   uint64
	nodes   map[string]*structs.Node
	jobs    map[string]*structs.Job
	allocs  map[string]*structs.Allocation
	evals   map[string]*structs.Evaluation
	changed chan struct{} // closed on every write
}

func newCluster() *cluster {
	return &cluster{index: 1, nodes: map[string]*structs.Node{}, jobs: map[string]*structs.Job{},
		allocs: map[string]*structs.Allocation{}, evals: map[string]*structs.Evaluation{}, changed: make(chan struct{})}
}

func (c *cluster) bumpLocked() uint64 {
	c.index++
	close(c.changed)
	c.changed = make(chan struct{})
	return c.index
}

func (c *cluster) ApplyPlanResults(req *structs.ApplyPlanResultsRequest) (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	idx := c.bumpLocked()
	for _, list := range [][]*structs.Allocation{req.AllocsPlaced, req.AllocsStopped, req.AllocsPreempted} {
		for _, a := range list {
			a = a.Copy()
			a.ModifyIndex = idx
			c.allocs[a.ID] = a
		}
	}
	return idx, nil
}

func (c *cluster) UpsertEvals(evals []*structs.Evaluation) (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	idx := c.bumpLocked()
	for _, e := range evals {
		e = e.Copy()
		e.ModifyIndex = idx
		c.evals[e.ID] = e
	}
	return idx, nil
}

func (c *cluster) snapshotLocked() *frozen {
	f := &frozen{index: c.index, nodes: map[string]*structs.Node{}, jobs: map[string]*structs.Job{}}
	for k, v := range c.nodes {
		f.nodes[k] = v
	}
	for k, v := range c.jobs {
		f.jobs[k] = v
	}
	for _, a := range c.allocs {
		f.allocs = append(f.allocs, a)
	}
	return f
}

func (c *cluster) Snapshot() (planapply.Snapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.snapshotLocked(), nil
}

func (c *cluster) SnapshotMinIndex(ctx context.Context, index uint64) (scheduler.State, error) {
	for {
		c.mu.Lock()
		if c.index >= index {
			defer c.mu.Unlock()
			return c.snapshotLocked(), nil
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// frozen is an immutable snapshot.
type frozen struct {
	index  uint64
	nodes  map[string]*structs.Node
	jobs   map[string]*structs.Job
	allocs []*structs.Allocation
}

func (f *frozen) Nodes() ([]*structs.Node, error) {
	out := make([]*structs.Node, 0, len(f.nodes))
	for _, n := range f.nodes {
		out = append(out, n)
	}
	return out, nil
}
func (f *frozen) NodeByID(id string) (*structs.Node, error)  { return f.nodes[id], nil }
func (f *frozen) JobByID(_, id string) (*structs.Job, error) { return f.jobs[id], nil }
func (f *frozen) AllocsByJob(_, id string) ([]*structs.Allocation, error) {
	var out []*structs.Allocation
	for _, a := range f.allocs {
		if a.JobID == id {
			out = append(out, a)
		}
	}
	return out, nil
}
func (f *frozen) LiveAllocsByNode(id string) ([]*structs.Allocation, error) {
	var out []*structs.Allocation
	for _, a := range f.allocs {
		if a.NodeID == id && !a.TerminalStatus() {
			out = append(out, a)
		}
	}
	return out, nil
}
func (f *frozen) AllocsByNode(id string) ([]*structs.Allocation, error) {
	var out []*structs.Allocation
	for _, a := range f.allocs {
		if a.NodeID == id {
			out = append(out, a)
		}
	}
	return out, nil
}
func (f *frozen) LatestIndex() (uint64, error) { return f.index, nil }
func (f *frozen) SchedulerConfig() (*structs.SchedulerConfiguration, error) {
	return structs.DefaultSchedulerConfiguration(), nil
}

// TestWorkersWithRealSchedulerNeverOverCommit runs four workers with the
// real service scheduler, broker and plan applier against a cluster that
// cannot hold every job: every eval ends acked, no node is over-committed,
// and the cluster is filled.
func TestWorkersWithRealSchedulerNeverOverCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster()
		for i := range 5 {
			c.nodes[fmt.Sprintf("n%d", i)] = schedulertest.Node(fmt.Sprintf("n%d", i), "dc1", 1000, 4096)
		}
		b := broker.NewEvalBroker(broker.BrokerConfig{})
		b.SetEnabled(true)
		defer b.SetEnabled(false)
		for i := range 20 {
			j := schedulertest.Job(fmt.Sprintf("job%d", i), structs.JobTypeService, 3, 300, 100)
			c.jobs[j.ID] = j
			e := schedulertest.Eval(fmt.Sprintf("eval%d", i), j, structs.EvalTriggerJobRegister)
			e.CreateIndex, e.ModifyIndex = 1, 1
			c.evals[e.ID] = e
			b.Enqueue(e)
		}
		applier := planapply.New(planapply.Config{State: c, Commit: c})
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { applier.Run(ctx) })
		for range 4 {
			w := worker.New(worker.Config{Broker: b, Plans: applier, State: c, Evals: c, Schedulers: []string{"service"}})
			wg.Go(func() { w.Run(ctx) })
		}
		synctest.Wait() // every worker is idle in Dequeue again
		if !allDone(c) {
			t.Errorf("evals not all complete; broker %+v", b.Stats())
		}
		cancel()
		wg.Wait()
		if s := b.Stats(); s.TotalUnacked+s.TotalReady+s.TotalWaiting != 0 {
			t.Fatalf("broker not drained: %+v", s)
		}
		checkNoOverCommit(t, c)
	})
}

// allDone reports whether every job eval is complete.
func allDone(c *cluster) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range 20 {
		if e := c.evals[fmt.Sprintf("eval%d", i)]; e.Status != structs.EvalStatusComplete {
			return false
		}
	}
	return true
}

func checkNoOverCommit(t *testing.T, c *cluster) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	placed := 0
	for id, n := range c.nodes {
		var on []*structs.Allocation
		for _, a := range c.allocs {
			if a.NodeID == id && !a.TerminalStatus() {
				on = append(on, a)
			}
		}
		if fit, dim, used := structs.AllocsFit(n, on); !fit {
			t.Errorf("node %s over-committed on %s: %+v", id, dim, used)
		}
		placed += len(on)
	}
	if placed != 15 {
		t.Errorf("placed %d allocs, want 15 (5 nodes x 3)", placed)
	}
}
