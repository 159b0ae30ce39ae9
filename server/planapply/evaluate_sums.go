package planapply

import (
	"errors"
	"fmt"
	"slices"

	"github.com/nomadish/nomadish/structs"
)

// UsageSnapshot is a Snapshot that keeps each node's live usage (the
// server's state store: its node_usage table). With it, a node whose part
// of the plan holds no host port and no reserved core is checked on the
// sums (fitsBySums) instead of listing and adding its allocations: the
// same Usage.Fits, on the same numbers.
type UsageSnapshot interface {
	// NodeLiveUsage is the sum of the node's live allocations' comparable
	// resources and their number.
	NodeLiveUsage(nodeID string) (structs.ComparableResources, int, error)
	AllocByID(id string) (*structs.Allocation, error) // nil, nil when absent
}

// errNoSums: an overlay's snapshot keeps no sums.
var errNoSums = errors.New("planapply: the snapshot keeps no node usage")

// sums returns snap as a UsageSnapshot when it (or an overlay's snapshot)
// keeps the sums.
func sums(snap Snapshot) (UsageSnapshot, bool) {
	if o, ok := snap.(*overlay); ok {
		_, ok := o.Snapshot.(UsageSnapshot)
		return o, ok
	}
	us, ok := snap.(UsageSnapshot)
	return us, ok
}

// fitsBySums is AllocsFit's cpu, memory and disk check for the node's part
// of the plan on the state's sum: the live allocations' total, less the old
// versions of those the plan stops, preempts or replaces there, plus each
// placement once. Ports and cores are not checked: the caller uses it only
// when no placement holds any (structs.Allocation.HoldsPortsOrCores).
func fitsBySums(us UsageSnapshot, node *structs.Node, p *structs.Plan, nodeID string) (bool, string, error) {
	used, _, err := us.NodeLiveUsage(nodeID)
	if err != nil {
		return false, "", fmt.Errorf("reading the usage of node %q: %w", nodeID, err)
	}
	u := structs.NewUsage(node)
	u.Used = used
	place := p.NodeAllocation[nodeID]
	seen := make(map[string]bool, len(place))
	for _, list := range [][]*structs.Allocation{p.NodeUpdate[nodeID], p.NodePreemptions[nodeID], place} {
		for _, a := range list {
			if seen[a.ID] {
				continue
			}
			seen[a.ID] = true
			old, err := us.AllocByID(a.ID)
			if err != nil {
				return false, "", fmt.Errorf("looking up alloc %q: %w", a.ID, err)
			}
			if old != nil && old.NodeID == nodeID && !old.TerminalStatus() {
				u.Used.Subtract(old.AllocatedResources.Comparable())
			}
		}
	}
	added := make(map[string]bool, len(place))
	for _, a := range place {
		if !added[a.ID] {
			added[a.ID] = true
			u.Add(a)
		}
	}
	fit, dim, _ := u.Fits(structs.ComparableResources{})
	if !fit {
		return false, "exhausted " + dim, nil
	}
	return true, "", nil
}

// summable reports whether the node's placements can be checked on sums.
func summable(place []*structs.Allocation) bool {
	return !slices.ContainsFunc(place, (*structs.Allocation).HoldsPortsOrCores)
}

// NodeLiveUsage is the snapshot's sum with the result in flight applied:
// less what it stops, preempts or replaces on the node, plus what it
// places there.
func (o *overlay) NodeLiveUsage(nodeID string) (structs.ComparableResources, int, error) {
	us, ok := o.Snapshot.(UsageSnapshot)
	if !ok {
		return structs.ComparableResources{}, 0, errNoSums
	}
	used, live, err := us.NodeLiveUsage(nodeID)
	d := o.byNode[nodeID]
	if err != nil || d == nil {
		return used, live, err
	}
	for id := range d.remove {
		old, err := us.AllocByID(id)
		if err != nil {
			return used, live, err
		}
		if old != nil && old.NodeID == nodeID && !old.TerminalStatus() {
			used.Subtract(old.AllocatedResources.Comparable())
			live--
		}
	}
	for _, a := range d.place {
		used.Add(a.AllocatedResources.Comparable())
		live++
	}
	return used, live, nil
}

// AllocByID is the allocation as the result in flight leaves it: its
// placed version, terminal when stopped or preempted, else the snapshot's.
func (o *overlay) AllocByID(id string) (*structs.Allocation, error) {
	us, ok := o.Snapshot.(UsageSnapshot)
	if !ok {
		return nil, errNoSums
	}
	if a, ok := o.placed[id]; ok {
		return a, nil
	}
	a, err := us.AllocByID(id)
	if err != nil || a == nil || !o.stopped[id] {
		return a, err
	}
	cp := *a
	cp.DesiredStatus = structs.AllocDesiredStatusStop
	return &cp, nil
}
