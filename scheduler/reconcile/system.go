package reconcile

import (
	"sort"

	"github.com/nomadish/nomadish/structs"
)

// Descriptions written on the allocations the system reconciler stops (the
// others are shared with Reconcile).
const (
	allocNodeNotTargeted = "alloc not needed as node is no longer targeted by the job"
	allocMigrating       = "alloc is being migrated" // structs.AllocDescriptionMigrating
)

// SystemInput is everything System looks at.
type SystemInput struct {
	Job    *structs.Job          // nil: purged
	Allocs []*structs.Allocation // the job's allocations, terminal ones included
	// Targets are the nodes the job runs on: ready, eligible, not draining,
	// in the job's datacenters and node pool.
	Targets []*structs.Node
	// Kept are the other nodes in the job's datacenters and pool that are
	// neither down nor disconnected (ineligible, draining, initializing):
	// they get no new allocation but keep the ones they hold, except those
	// the drainer marked for migration.
	Kept map[string]*structs.Node
	// TaintedNodes are the nodes that can no longer run allocations (down,
	// disconnected, or gone: a nil value).
	TaintedNodes map[string]*structs.Node
	// InPlaceFits is Input.InPlaceFits.
	InPlaceFits func(a *structs.Allocation, tg *structs.TaskGroup) bool
}

// SystemPlacement is one allocation to place on a given node.
type SystemPlacement struct {
	Placement
	Node *structs.Node
}

// SystemResult is the system reconciler's decision. Lists are ordered by
// task group (the job's order, then removed groups by name) and node ID.
type SystemResult struct {
	Place  []SystemPlacement
	Stop   []Stop
	Ignore []*structs.Allocation
	// InPlace are live allocs of an older job version to update in place
	// (to the new job, without a restart).
	InPlace          []*structs.Allocation
	DesiredTGUpdates map[string]*structs.DesiredUpdates
}

// Fields returns key/value pairs for structured logs.
func (r *SystemResult) Fields() []any {
	return []any{"place", len(r.Place), "stop", len(r.Stop), "ignore", len(r.Ignore)}
}

func (r *SystemResult) updates(group string) *structs.DesiredUpdates {
	u := r.DesiredTGUpdates[group]
	if u == nil {
		u = &structs.DesiredUpdates{}
		r.DesiredTGUpdates[group] = u
	}
	return u
}

// System decides, for a system or sysbatch job, what to place,
// stop and leave alone on every node. It is a pure function of its input.
//
// Rules: each group wants one allocation, named <job>.<group>[0], on every
// target node (a group's count is ignored). A stopped or purged job stops
// every live alloc; allocs of a removed group stop. On a tainted node live
// allocs are stopped as lost and not replaced elsewhere. On a kept node
// (ineligible, draining) they keep running unless marked for migration.
// On a node the job no longer targets (datacenter or pool changed) they
// stop. On a target node: extra live allocs of a group stop, a live alloc
// whose group's tasks changed is stopped and placed again (a destructive
// update, all nodes at once), one with only other fields changed is updated
// in place (the rules of update.go), a missing alloc is placed. Terminal allocs are
// history: a system group places again (the newest is the new alloc's
// Previous), a sysbatch group does not re-run an alloc that completed or
// failed with the current tasks; one stopped before it finished (lost, job
// stopped) runs again.
func System(in SystemInput) SystemResult {
	res := SystemResult{DesiredTGUpdates: map[string]*structs.DesiredUpdates{}}
	type key struct{ group, node string }
	byKey := map[key][]*structs.Allocation{}
	removed := map[string][]*structs.Allocation{}
	for _, a := range in.Allocs {
		if in.Job.Stopped() || in.Job.LookupTaskGroup(a.TaskGroup) == nil {
			removed[a.TaskGroup] = append(removed[a.TaskGroup], a)
			continue
		}
		k := key{a.TaskGroup, a.NodeID}
		byKey[k] = append(byKey[k], a)
	}
	if !in.Job.Stopped() {
		targets := make(map[string]*structs.Node, len(in.Targets))
		for _, n := range in.Targets {
			targets[n.ID] = n
		}
		for _, tg := range in.Job.TaskGroups {
			ids := make([]string, 0, len(in.Targets))
			for _, n := range in.Targets {
				ids = append(ids, n.ID)
			}
			for k := range byKey {
				if _, ok := targets[k.node]; !ok && k.group == tg.Name {
					ids = append(ids, k.node)
				}
			}
			if !sort.StringsAreSorted(ids) {
				sort.Strings(ids)
			}
			s := systemGroup{in: &in, tg: tg, res: &res, u: res.updates(tg.Name)}
			for _, id := range ids {
				s.reconcileNode(id, targets[id], byKey[key{tg.Name, id}])
			}
		}
	}
	desc := allocGroupRemoved
	if in.Job.Stopped() {
		desc = allocJobStopped
	}
	for _, name := range sortedKeys(removed) {
		u := res.updates(name)
		for _, a := range removed[name] {
			if isLive(a) {
				res.Stop = append(res.Stop, Stop{Alloc: a, Description: desc, ClientStatus: lostStatus(a, in.TaintedNodes)})
				u.Stop++
			}
		}
	}
	return res
}

// systemGroup reconciles one group, node by node.
type systemGroup struct {
	in  *SystemInput
	tg  *structs.TaskGroup
	res *SystemResult
	u   *structs.DesiredUpdates
}

// reconcileNode decides for the group's allocs on one node; target is the
// node when the job targets it, else nil.
func (s *systemGroup) reconcileNode(nodeID string, target *structs.Node, allocs []*structs.Allocation) {
	var live []*structs.Allocation
	var newestTerminal *structs.Allocation
	for _, a := range allocs {
		if isLive(a) {
			live = append(live, a)
		} else if newestTerminal == nil || a.CreateIndex > newestTerminal.CreateIndex {
			newestTerminal = a
		}
	}
	sort.SliceStable(live, func(i, j int) bool { return live[i].CreateIndex < live[j].CreateIndex })
	_, tainted := s.in.TaintedNodes[nodeID]
	_, kept := s.in.Kept[nodeID]
	switch {
	case tainted:
		for _, a := range live {
			s.stop(a, allocLost, structs.AllocClientStatusLost)
		}
	case kept:
		for i, a := range live {
			switch {
			case a.DesiredTransition.ShouldMigrate():
				s.stop(a, allocMigrating, "")
			case i > 0:
				s.stop(a, allocDuplicateName, "")
			default:
				s.ignore(a)
			}
		}
	case target == nil:
		for _, a := range live {
			s.stop(a, allocNodeNotTargeted, "")
		}
	default:
		s.reconcileTarget(target, live, allocs, newestTerminal)
	}
}

// reconcileTarget handles a node the job targets.
func (s *systemGroup) reconcileTarget(node *structs.Node, live, allocs []*structs.Allocation, newestTerminal *structs.Allocation) {
	for _, a := range live[min(1, len(live)):] {
		s.stop(a, allocDuplicateName, "")
	}
	if len(live) > 0 {
		a := live[0]
		switch classifyInPlace(a, s.in.Job, s.tg, s.in.InPlaceFits) {
		case updateIgnore:
			s.ignore(a)
		case updateInPlace:
			s.res.InPlace = append(s.res.InPlace, a)
			s.u.InPlaceUpdate++
		default:
			s.res.Stop = append(s.res.Stop, Stop{Alloc: a, Description: allocUpdating})
			s.u.DestructiveUpdate++
			s.place(node, a, true)
		}
		return
	}
	if s.in.Job.Type == structs.JobTypeSysBatch {
		if done := sysbatchDone(s.in.Job, s.tg, allocs); done != nil {
			s.ignore(done)
			return
		}
	}
	s.u.Place++
	s.place(node, newestTerminal, false)
}

// sysbatchDone returns an alloc of the group on the node that ran to its end
// (complete or failed) with the group's current tasks, or nil.
func sysbatchDone(job *structs.Job, tg *structs.TaskGroup, allocs []*structs.Allocation) *structs.Allocation {
	for _, a := range allocs {
		switch a.ClientStatus {
		case structs.AllocClientStatusComplete, structs.AllocClientStatusFailed:
			if !tasksChanged(a.Job, job, tg) {
				return a
			}
		}
	}
	return nil
}

func (s *systemGroup) place(node *structs.Node, prev *structs.Allocation, destructive bool) {
	s.res.Place = append(s.res.Place, SystemPlacement{Node: node, Placement: Placement{
		TaskGroup: s.tg, Name: structs.AllocName(s.in.Job.ID, s.tg.Name, 0), Previous: prev, Destructive: destructive,
	}})
}

func (s *systemGroup) stop(a *structs.Allocation, desc, clientStatus string) {
	s.res.Stop = append(s.res.Stop, Stop{Alloc: a, Description: desc, ClientStatus: clientStatus})
	s.u.Stop++
}

func (s *systemGroup) ignore(a *structs.Allocation) {
	s.res.Ignore = append(s.res.Ignore, a)
	s.u.Ignore++
}
