// Package planapplytest holds an in-memory state store for testing the plan
// applier: it is both the applier's StateSource and its Committer, so each
// commit is visible to the next snapshot, as with raft and the real store.
package planapplytest

import (
	"errors"
	"sync"

	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/structs"
)

var (
	_ planapply.StateSource = (*Store)(nil)
	_ planapply.Committer   = (*Store)(nil)
	_ planapply.Snapshot    = (*snapshot)(nil)
)

// Store is an in-memory node and alloc store.
type Store struct {
	mu      sync.Mutex // guards every field
	index   uint64
	nodes   map[string]*structs.Node
	allocs  map[string]*structs.Allocation
	commits []*structs.ApplyPlanResultsRequest
	// FailCommit, when set, makes ApplyPlanResults fail with it.
	FailCommit error
	// KeepSums makes snapshots keep per-node sums, as the server's store
	// does (planapply.UsageSnapshot). Set it before the applier runs.
	KeepSums bool
}

// NewStore returns an empty store at index 1.
func NewStore() *Store {
	return &Store{index: 1, nodes: map[string]*structs.Node{}, allocs: map[string]*structs.Allocation{}}
}

// UpsertNode stores the node at the next index.
func (s *Store) UpsertNode(n *structs.Node) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.index++
	s.nodes[n.ID] = n
}

// UpsertAlloc stores the alloc at the next index.
func (s *Store) UpsertAlloc(a *structs.Allocation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.index++
	s.allocs[a.ID] = a
}

// ApplyPlanResults applies the request at the next index, like the FSM.
func (s *Store) ApplyPlanResults(req *structs.ApplyPlanResultsRequest) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.FailCommit != nil {
		return 0, s.FailCommit
	}
	s.index++
	for _, a := range req.AllocsPlaced {
		if a.Job == nil && req.Job != nil { // the entry holds the job once, as the FSM reads it
			c := *a
			c.Job = req.Job
			a = &c
		}
		s.allocs[a.ID] = a
	}
	for _, list := range [][]*structs.Allocation{req.AllocsStopped, req.AllocsPreempted} {
		for _, a := range list {
			old, ok := s.allocs[a.ID]
			if !ok {
				continue
			}
			c := *old
			c.DesiredStatus, c.DesiredDescription = a.DesiredStatus, a.DesiredDescription
			if c.DesiredStatus == "" {
				c.DesiredStatus = structs.AllocDesiredStatusEvict
			}
			if a.ClientStatus != "" {
				c.ClientStatus = a.ClientStatus
			}
			s.allocs[a.ID] = &c
		}
	}
	s.commits = append(s.commits, req)
	return s.index, nil
}

// Commits returns the requests applied so far.
func (s *Store) Commits() []*structs.ApplyPlanResultsRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*structs.ApplyPlanResultsRequest(nil), s.commits...)
}

// Snapshot returns a frozen copy of the store.
func (s *Store) Snapshot() (planapply.Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := &snapshot{index: s.index, nodes: map[string]*structs.Node{}, byNode: map[string][]*structs.Allocation{}}
	for id, n := range s.nodes {
		snap.nodes[id] = n
	}
	for _, a := range s.allocs {
		snap.byNode[a.NodeID] = append(snap.byNode[a.NodeID], a)
	}
	if s.KeepSums {
		return &sumsSnapshot{snap}, nil
	}
	return snap, nil
}

// sumsSnapshot also keeps per-node sums (planapply.UsageSnapshot), as the
// server's state store does: the applier then checks nodes on them.
type sumsSnapshot struct{ *snapshot }

func (s *sumsSnapshot) NodeLiveUsage(id string) (structs.ComparableResources, int, error) {
	var used structs.ComparableResources
	live := 0
	for _, a := range s.byNode[id] {
		if !a.TerminalStatus() {
			used.Add(a.AllocatedResources.Comparable())
			live++
		}
	}
	return used, live, nil
}

func (s *sumsSnapshot) AllocByID(id string) (*structs.Allocation, error) {
	for _, as := range s.byNode {
		for _, a := range as {
			if a.ID == id {
				return a, nil
			}
		}
	}
	return nil, nil
}

type snapshot struct {
	index  uint64
	nodes  map[string]*structs.Node
	byNode map[string][]*structs.Allocation
}

func (s *snapshot) NodeByID(id string) (*structs.Node, error) { return s.nodes[id], nil }
func (s *snapshot) AllocsByNode(id string) ([]*structs.Allocation, error) {
	return s.byNode[id], nil
}
func (s *snapshot) LiveAllocsByNode(id string) ([]*structs.Allocation, error) {
	var out []*structs.Allocation
	for _, a := range s.byNode[id] {
		if !a.TerminalStatus() {
			out = append(out, a)
		}
	}
	return out, nil
}
func (s *snapshot) LatestIndex() (uint64, error) { return s.index, nil }

// ErrCommit is a ready-made commit failure for FailCommit.
var ErrCommit = errors.New("planapplytest: commit failed")

// Node returns a ready node with the given CPU (MHz) and memory (MB).
func Node(id string, cpu, mem int64) *structs.Node {
	return &structs.Node{
		ID: id, Name: id, Status: structs.NodeStatusReady,
		SchedulingEligibility: structs.NodeSchedulingEligible,
		NodeResources: &structs.NodeResources{
			Cpu: structs.NodeCpuResources{CpuShares: cpu}, Memory: structs.NodeMemoryResources{MemoryMB: mem},
			Disk: structs.NodeDiskResources{DiskMB: 100_000},
		},
	}
}

// Alloc returns a running alloc on the node asking for cpu and mem.
func Alloc(id, nodeID string, cpu, mem int64) *structs.Allocation {
	return &structs.Allocation{
		ID: id, NodeID: nodeID, Namespace: "default", JobID: "job", TaskGroup: "web",
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending,
		AllocatedResources: &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{
			"t": {Cpu: structs.AllocatedCpuResources{CpuShares: cpu}, Memory: structs.AllocatedMemoryResources{MemoryMB: mem}},
		}},
	}
}
