package server

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// invariantChecker wraps the leader's notifier and, after every write the
// store commits (so after every applied plan), checks that no node is
// over-committed on any dimension and that no job has two live allocs with
// one name. It runs on the FSM goroutine; violations are kept for the test.
type invariantChecker struct {
	state.Notifier
	s *Server

	mu         sync.Mutex
	commits    int
	violations []string
}

var _ state.CommitObserver = (*invariantChecker)(nil)

func (c *invariantChecker) Committed(index uint64) {
	snap := c.s.State().Snapshot()
	var bad []string
	nodes, _ := snap.Nodes(nil)
	for _, n := range nodes {
		allocs, _ := snap.AllocsByNode(nil, n.ID)
		if fit, dim, used := structs.AllocsFit(n, allocs); !fit {
			bad = append(bad, fmt.Sprintf("index %d: node %s over-committed on %s: %+v of %+v", index, n.ID, dim, used, n.Comparable()))
		}
	}
	allocs, _ := snap.Allocs(nil)
	names := map[string]string{}
	for _, a := range allocs {
		if a.TerminalStatus() {
			continue
		}
		key := a.Namespace + "/" + a.JobID + "/" + a.Name
		if a.Job != nil && (a.Job.Type == structs.JobTypeSystem || a.Job.Type == structs.JobTypeSysBatch) {
			key += "@" + a.NodeID // one alloc of each name per node
		}
		if other, dup := names[key]; dup {
			bad = append(bad, fmt.Sprintf("index %d: allocs %s and %s both live as %s", index, other, a.ID, a.Name))
		}
		names[key] = a.ID
	}
	c.mu.Lock()
	c.commits++
	c.violations = append(c.violations, bad...)
	c.mu.Unlock()
}

// jobType picks a job type: service, batch, system or sysbatch.
func jobType(r *rand.Rand) string {
	return []string{structs.JobTypeService, structs.JobTypeService, structs.JobTypeService, structs.JobTypeBatch,
		structs.JobTypeBatch, structs.JobTypeBatch, structs.JobTypeSystem, structs.JobTypeSysBatch}[r.IntN(8)]
}

// concurrencyJob is a job of the type with random priority, count and size.
func concurrencyJob(r *rand.Rand, id, typ string) *structs.Job {
	j := structstest.Job(id)
	j.Type = typ
	j.Priority = []int{10, 20, 40, 60, 80, 100}[r.IntN(6)]
	tg := j.TaskGroups[0]
	tg.Count = 1 + r.IntN(4)
	tg.Tasks[0].Resources = &structs.Resources{CPU: 250 * (1 + r.IntN(3)), MemoryMB: 128 * (1 + r.IntN(4))}
	return j
}

// TestRandomizedConcurrentScheduling runs a real dev-mode server (broker,
// plan applier, four workers) with four small nodes registered through RPC,
// and registers, updates and stops many conflicting jobs of all four types
// and mixed priorities from concurrent goroutines: the cluster cannot hold them all, so
// plans conflict, fail partly, preempt and block. After every applied plan
// no node is over-committed and no alloc name is duplicated (per node for
// system jobs); at the end every
// eval is acked (terminal, or blocked waiting for capacity) and the broker
// is empty.
func TestRandomizedConcurrentScheduling(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	s := testServer(t, func(c *Config) { c.NumSchedulers = 4 })
	for i := range 4 {
		n := structstest.Node(fmt.Sprintf("n%d", i))
		n.NodeResources.Cpu.CpuShares, n.NodeResources.Memory.MemoryMB = 2000, 2048
		var resp structs.NodeUpdateResponse
		if err := s.RPC(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: n}, &resp); err != nil {
			t.Fatal(err)
		}
	}
	checker := &invariantChecker{Notifier: s.State().Notifier(), s: s}
	s.State().SetNotifier(checker)

	const writers, jobsPerWriter = 8, 12
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			types := map[string]string{} // a job keeps its type (Nomad refuses a change)
			for i := range jobsPerWriter {
				id := fmt.Sprintf("job-%d-%d", w, i)
				types[id] = jobType(r)
				if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: concurrencyJob(r, id, types[id])}, &structs.JobRegisterResponse{}); err != nil {
					errs <- fmt.Errorf("registering %s: %w", id, err)
					return
				}
				if i > 0 && r.IntN(3) == 0 { // update an earlier job: new count and size
					prev := fmt.Sprintf("job-%d-%d", w, r.IntN(i))
					if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: concurrencyJob(r, prev, types[prev])}, &structs.JobRegisterResponse{}); err != nil {
						errs <- fmt.Errorf("updating %s: %w", prev, err)
						return
					}
				}
				if i > 0 && r.IntN(5) == 0 { // stop an earlier job: capacity returns
					prev := fmt.Sprintf("job-%d-%d", w, r.IntN(i))
					if err := s.RPC(structs.JobDeregisterRPC, &structs.JobDeregisterRequest{JobID: prev, WriteRequest: structs.WriteRequest{Namespace: "default"}}, &structs.JobDeregisterResponse{}); err != nil {
						errs <- fmt.Errorf("stopping %s: %w", prev, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	waitQuiescent(t, s)
	checker.mu.Lock()
	defer checker.mu.Unlock()
	for _, v := range checker.violations {
		t.Error(v)
	}
	checkNoMissedPreemption(t, s)
	allocs, _ := s.State().Allocs(nil)
	preempted, live := 0, 0
	for _, a := range allocs {
		if a.DesiredStatus == structs.AllocDesiredStatusEvict {
			preempted++
		}
		if !a.TerminalStatus() {
			live++
		}
	}
	evals, _ := s.State().Evals(nil)
	byStatus := map[string]int{}
	for _, e := range evals {
		byStatus[e.Status+"/"+e.TriggeredBy]++
	}
	t.Logf("%d commits checked; %d allocs (%d live, %d preempted); evals %v", checker.commits, len(allocs), live, preempted, byStatus)
	if live == 0 {
		t.Fatal("nothing was placed")
	}
}

// waitQuiescent waits until every eval in state is terminal or blocked and
// the broker holds nothing (ready, unacked, waiting or delayed).
func waitQuiescent(t *testing.T, s *Server) {
	t.Helper()
	var pending []string
	waitState(t, s, "every eval terminal or blocked", func(st *state.StateStore, ws memdb.WatchSet) bool {
		evals, _ := st.Evals(ws)
		pending = pending[:0]
		for _, e := range evals {
			if !e.TerminalStatus() && e.Status != structs.EvalStatusBlocked {
				pending = append(pending, e.ID+" "+e.Status)
			}
		}
		return len(pending) == 0
	})
	// The worker acks an eval just after writing its outcome: poll the
	// broker (a real server's goroutines) with a deadline.
	deadline := time.Now().Add(5 * time.Second)
	for {
		st := s.broker.Stats()
		if st.TotalReady+st.TotalUnacked+st.TotalBlocked+st.TotalWaiting+st.TotalDelayed == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker not empty: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A registered job cannot change its type (as in Nomad): a system job's
// allocs, one per node under one name, would be duplicates to a service job.
func TestJobTypeChangeRefused(t *testing.T) {
	s := testServer(t, nil)
	job := structstest.Job("web")
	registerJob(t, s, job)
	sys := structstest.Job("web")
	sys.Type = structs.JobTypeSystem
	err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: sys}, &structs.JobRegisterResponse{})
	if code, _ := structs.ErrorCode(err); code != structs.ErrCodeBadRequest {
		t.Fatalf("type change: %v", err)
	}
}

// checkNoMissedPreemption fails when a job waits in a blocked eval although
// some node could take one allocation of its group by evicting allocations
// of jobs at least 10 priorities lower: preemption should have placed it.
// The jobs' only constraint is resources and preemption is on for every type.
func checkNoMissedPreemption(t *testing.T, s *Server) {
	t.Helper()
	snap := s.State().Snapshot()
	evals, _ := snap.Evals(nil)
	nodes, _ := snap.Nodes(nil)
	for _, e := range evals {
		job, _ := snap.JobByID(nil, e.Namespace, e.JobID)
		if e.Status != structs.EvalStatusBlocked || job == nil || job.Stop {
			continue
		}
		if !missingAllocs(snap, job) {
			continue // placed since: a stale blocked eval
		}
		probe := &structs.Allocation{DesiredStatus: structs.AllocDesiredStatusRun, AllocatedResources: structs.AllocatedFor(job.TaskGroups[0])}
		for _, n := range nodes {
			allocs, _ := snap.AllocsByNode(nil, n.ID)
			rest := []*structs.Allocation{probe}
			onNode := false
			for _, a := range allocs {
				if a.TerminalStatus() {
					continue
				}
				onNode = onNode || a.JobID == job.ID
				if a.Job.Priority > job.Priority-structs.PreemptionMinPriorityDelta {
					rest = append(rest, a)
				}
			}
			if onNode && (job.Type == structs.JobTypeSystem || job.Type == structs.JobTypeSysBatch) {
				continue // a system job needs no second alloc here
			}
			if fit, _, _ := structs.AllocsFit(n, rest); fit {
				t.Errorf("job %s (priority %d) blocked in eval %s, but evicting lower-priority allocs on %s makes room", job.ID, job.Priority, e.ID, n.ID)
			}
		}
	}
}

// missingAllocs reports whether a service or batch job has fewer live (or,
// batch, completed) allocs than its count; system jobs always may.
func missingAllocs(snap *state.StateSnapshot, job *structs.Job) bool {
	if job.Type == structs.JobTypeSystem || job.Type == structs.JobTypeSysBatch {
		return true
	}
	allocs, _ := snap.AllocsByJob(nil, job.Namespace, job.ID)
	have := 0
	for _, a := range allocs {
		if !a.TerminalStatus() && a.Job.Version == job.Version {
			have++
		}
	}
	return have < job.TaskGroups[0].Count
}
