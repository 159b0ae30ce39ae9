package planapply

import "github.com/nomadish/nomadish/structs"

// overlay is a snapshot with a plan result that is being committed laid
// over it, as Nomad's plan applier applies plan N to its snapshot
// optimistically so plan N+1 can be checked while N's raft entry commits.
// Only the fit check's reads change: a node's live allocations are the
// snapshot's minus those the pending result stops or preempts, with its
// placements (in-place updates replace the stored version; terminal ones
// drop out). Allocations are matched by ID, so a snapshot that already
// holds the result (the commit landed before it was taken) counts nothing
// twice.
type overlay struct {
	Snapshot
	byNode map[string]*nodeDelta
	// placed and stopped by ID, for AllocByID (evaluate_sums.go).
	placed  map[string]*structs.Allocation
	stopped map[string]bool
}

// nodeDelta is a pending result's part on one node.
type nodeDelta struct {
	remove map[string]bool // stopped, preempted or replaced IDs
	place  []*structs.Allocation
}

// newOverlay lays req (the committed part of a plan) over snap; nil req
// leaves snap as it is.
func newOverlay(snap Snapshot, req *structs.ApplyPlanResultsRequest) Snapshot {
	if req == nil {
		return snap
	}
	o := &overlay{Snapshot: snap, byNode: map[string]*nodeDelta{},
		placed: map[string]*structs.Allocation{}, stopped: map[string]bool{}}
	delta := func(node string) *nodeDelta {
		d := o.byNode[node]
		if d == nil {
			d = &nodeDelta{remove: map[string]bool{}}
			o.byNode[node] = d
		}
		return d
	}
	for _, list := range [][]*structs.Allocation{req.AllocsStopped, req.AllocsPreempted} {
		for _, a := range list {
			delta(a.NodeID).remove[a.ID] = true
			o.stopped[a.ID] = true
		}
	}
	for _, a := range req.AllocsPlaced {
		d := delta(a.NodeID)
		d.remove[a.ID] = true
		o.placed[a.ID] = a
		if !a.TerminalStatus() {
			d.place = append(d.place, a)
		}
	}
	return o
}

// LiveAllocsByNode is the snapshot's live allocations on the node with the
// pending result applied.
func (o *overlay) LiveAllocsByNode(nodeID string) ([]*structs.Allocation, error) {
	live, err := o.Snapshot.LiveAllocsByNode(nodeID)
	d := o.byNode[nodeID]
	if err != nil || d == nil {
		return live, err
	}
	out := make([]*structs.Allocation, 0, len(live)+len(d.place))
	for _, a := range live {
		if !d.remove[a.ID] {
			out = append(out, a)
		}
	}
	return append(out, d.place...), nil
}
