// Package schedulertest holds an in-memory cluster state for driving the
// scheduler in tests, benchmarks and the simulator: Store is both the
// scheduler's State and its Planner, and applies plans with the same fit
// check as the plan applier (structs.AllocsFit), node by node.
package schedulertest

import (
	"sort"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/structs"
)

// Store is a map-based state store. Every write bumps its index. Reads return
// the stored pointers: callers must not mutate them. Not safe for concurrent use.
type Store struct {
	index  uint64
	nodes  map[string]*structs.Node
	jobs   map[structs.NamespacedID]*structs.Job
	allocs map[string]*structs.Allocation
	byNode map[string]map[string]bool // alloc IDs per node (putAlloc), so AllocsByNode is not O(allocs)
	evals  map[string]*structs.Evaluation
	order  []string // eval IDs in creation order
	// sortedNodes caches Nodes' result; UpsertNode clears it.
	sortedNodes []*structs.Node
	// schedConfig is the scheduler configuration (nil: the default).
	schedConfig *structs.SchedulerConfiguration
	// pools are the node pools set with SetNodePool; nil until the first.
	pools map[string]*structs.NodePool
	// deployments by ID (deployments.go); nil until the first one.
	deployments map[string]*structs.Deployment

	// BeforeSubmit, when set, runs at the start of every SubmitPlan: a
	// concurrent writer racing the scheduler (e.g. to force a partial commit).
	BeforeSubmit func(s *Store, plan *structs.Plan)
	// RejectNode, when set, is asked for every node of every plan: true
	// rejects the node's part as if it no longer fit (a plan applier fault).
	RejectNode func(nodeID string) bool
	// Plans and Results record every plan submitted and what was committed.
	Plans   []*structs.Plan
	Results []*structs.PlanResult
	// Reblocked records the evals passed to ReblockEval.
	Reblocked []*structs.Evaluation
}

var (
	_ scheduler.State   = (*Store)(nil)
	_ scheduler.Planner = (*Store)(nil)

	_ scheduler.NodePoolState = (*Store)(nil)
)

// NewStore returns an empty store at index 1.
func NewStore() *Store {
	return &Store{
		index: 1, nodes: map[string]*structs.Node{}, jobs: map[structs.NamespacedID]*structs.Job{},
		allocs: map[string]*structs.Allocation{}, evals: map[string]*structs.Evaluation{},
		byNode: map[string]map[string]bool{},
	}
}

func (s *Store) bump() uint64 { s.index++; return s.index }

// UpsertNode adds or replaces a node, computing its ComputedClass.
func (s *Store) UpsertNode(n *structs.Node) {
	n.ComputeClass() // as the server's Node.Register does
	idx := s.bump()
	if old := s.nodes[n.ID]; old != nil {
		n.CreateIndex = old.CreateIndex
	} else {
		n.CreateIndex = idx
	}
	n.ModifyIndex = idx
	s.nodes[n.ID] = n
	s.sortedNodes = nil
}

// UpsertJob adds or replaces a job, bumping its version when it existed.
func (s *Store) UpsertJob(j *structs.Job) {
	idx := s.bump()
	if old := s.jobs[j.NamespacedID()]; old != nil {
		j.CreateIndex, j.Version = old.CreateIndex, old.Version+1
	} else {
		j.CreateIndex = idx
	}
	j.ModifyIndex, j.JobModifyIndex = idx, idx
	s.jobs[j.NamespacedID()] = j
}

// DeleteJob purges a job (its allocations stay, as in the real store).
func (s *Store) DeleteJob(namespace, id string) {
	s.bump()
	delete(s.jobs, structs.NamespacedID{ID: id, Namespace: namespace})
}

// UpsertAllocs adds or replaces allocations.
func (s *Store) UpsertAllocs(allocs ...*structs.Allocation) {
	idx := s.bump()
	for _, a := range allocs {
		s.putAlloc(a, idx)
	}
}

func (s *Store) putAlloc(a *structs.Allocation, idx uint64) {
	if old := s.allocs[a.ID]; old != nil {
		a.CreateIndex = old.CreateIndex
	} else {
		a.CreateIndex = idx
	}
	a.ModifyIndex, a.AllocModifyIndex = idx, idx
	s.index1(a)
}

// index1 stores a and indexes it by node.
func (s *Store) index1(a *structs.Allocation) {
	if old := s.allocs[a.ID]; old != nil && old.NodeID != a.NodeID {
		delete(s.byNode[old.NodeID], a.ID)
	}
	s.allocs[a.ID] = a
	if s.byNode[a.NodeID] == nil {
		s.byNode[a.NodeID] = map[string]bool{}
	}
	s.byNode[a.NodeID][a.ID] = true
}

// UpsertEval adds or replaces an evaluation.
func (s *Store) UpsertEval(e *structs.Evaluation) {
	idx := s.bump()
	if old := s.evals[e.ID]; old != nil {
		e.CreateIndex = old.CreateIndex
	} else {
		e.CreateIndex = idx
		s.order = append(s.order, e.ID)
	}
	e.ModifyIndex = idx
	s.evals[e.ID] = e
}

// Evals returns every eval in creation order.
func (s *Store) Evals() []*structs.Evaluation {
	out := make([]*structs.Evaluation, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.evals[id])
	}
	return out
}

// Eval returns the eval with the ID, or nil.
func (s *Store) Eval(id string) *structs.Evaluation { return s.evals[id] }

// Allocs returns every allocation, sorted by job, name and create index.
func (s *Store) Allocs() []*structs.Allocation {
	out := make([]*structs.Allocation, 0, len(s.allocs))
	for _, a := range s.allocs {
		out = append(out, a)
	}
	sortAllocs(out)
	return out
}

func sortAllocs(as []*structs.Allocation) {
	sort.Slice(as, func(i, j int) bool {
		a, b := as[i], as[j]
		if a.JobID != b.JobID {
			return a.JobID < b.JobID
		}
		if a.TaskGroup != b.TaskGroup {
			return a.TaskGroup < b.TaskGroup
		}
		if a.Index() != b.Index() {
			return a.Index() < b.Index()
		}
		if a.CreateIndex != b.CreateIndex {
			return a.CreateIndex < b.CreateIndex
		}
		return a.NodeID < b.NodeID // a system job's allocs share one name
	})
}

// Nodes returns all nodes sorted by ID. The slice is cached until the next
// UpsertNode (benchmarks read it once per eval): callers must not mutate it.
func (s *Store) Nodes() ([]*structs.Node, error) {
	if s.sortedNodes == nil {
		out := make([]*structs.Node, 0, len(s.nodes))
		for _, n := range s.nodes {
			out = append(out, n)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
		s.sortedNodes = out
	}
	return s.sortedNodes, nil
}

// NodeByID returns the node or nil.
func (s *Store) NodeByID(id string) (*structs.Node, error) { return s.nodes[id], nil }

// JobByID returns the job or nil.
func (s *Store) JobByID(namespace, id string) (*structs.Job, error) {
	return s.jobs[structs.NamespacedID{ID: id, Namespace: namespace}], nil
}

// AllocsByJob returns the job's allocations, terminal ones included.
func (s *Store) AllocsByJob(namespace, jobID string) ([]*structs.Allocation, error) {
	var out []*structs.Allocation
	for _, a := range s.allocs {
		if a.Namespace == namespace && a.JobID == jobID {
			out = append(out, a)
		}
	}
	sortAllocs(out)
	return out, nil
}

// AllocsByNode returns the node's allocations, terminal ones included.
func (s *Store) AllocsByNode(nodeID string) ([]*structs.Allocation, error) {
	var out []*structs.Allocation
	for id := range s.byNode[nodeID] {
		out = append(out, s.allocs[id])
	}
	sortAllocs(out)
	return out, nil
}

// LiveAllocsByNode returns the node's non-terminal allocations.
func (s *Store) LiveAllocsByNode(nodeID string) ([]*structs.Allocation, error) {
	var out []*structs.Allocation
	for id := range s.byNode[nodeID] {
		if a := s.allocs[id]; !a.TerminalStatus() {
			out = append(out, a)
		}
	}
	sortAllocs(out)
	return out, nil
}

// LatestIndex returns the index of the last write.
func (s *Store) LatestIndex() (uint64, error) { return s.index, nil }

// SchedulerConfig returns the configuration set with SetSchedulerConfig, or
// structs.DefaultSchedulerConfiguration.
func (s *Store) SchedulerConfig() (*structs.SchedulerConfiguration, error) {
	if s.schedConfig == nil {
		return structs.DefaultSchedulerConfiguration(), nil
	}
	return s.schedConfig, nil
}

// SetSchedulerConfig replaces the scheduler configuration.
func (s *Store) SetSchedulerConfig(c *structs.SchedulerConfiguration) {
	idx := s.bump()
	c.ModifyIndex = idx
	s.schedConfig = c
}

// NodePoolByName returns the pool set with SetNodePool (nil when none): the
// store is a scheduler.NodePoolState.
func (s *Store) NodePoolByName(name string) (*structs.NodePool, error) { return s.pools[name], nil }

// SetNodePool adds or replaces a node pool (its scheduler configuration
// overrides the store's for the pool's jobs).
func (s *Store) SetNodePool(p *structs.NodePool) {
	if s.pools == nil {
		s.pools = map[string]*structs.NodePool{}
	}
	s.pools[p.Name] = p
}

// NodeLiveUsage sums the node's live allocations: the server's store keeps
// this sum per node (scheduler.NodeUsageState); this store adds it up.
func (s *Store) NodeLiveUsage(nodeID string) (structs.ComparableResources, int, error) {
	var used structs.ComparableResources
	live := 0
	for id := range s.byNode[nodeID] {
		if a := s.allocs[id]; !a.TerminalStatus() {
			used.Add(a.AllocatedResources.Comparable())
			live++
		}
	}
	return used, live, nil
}

// AllocByID returns the allocation (nil when absent).
func (s *Store) AllocByID(id string) (*structs.Allocation, error) { return s.allocs[id], nil }
