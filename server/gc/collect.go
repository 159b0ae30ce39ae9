package gc

import (
	"time"

	"github.com/nomadish/nomadish/structs"
)

// Input is the part of the state Collect reads: every job, evaluation,
// allocation, deployment and node of one snapshot, in the store's order
// (the result follows it, so it is deterministic). Collect does not
// modify them.
type Input struct {
	Jobs        []*structs.Job
	Evals       []*structs.Evaluation
	Allocs      []*structs.Allocation
	Deployments []*structs.Deployment
	Nodes       []*structs.Node
	// Times dates deployments (nil: deployments are dated from their
	// allocations only).
	Times *TimeTable
}

// Kind is the kind of object a Victim is.
type Kind string

// The kinds of objects collected.
const (
	KindJob        Kind = "job"
	KindEval       Kind = "eval"
	KindAlloc      Kind = "alloc"
	KindDeployment Kind = "deployment"
	KindNode       Kind = "node"
)

// Victim is one object to delete and why. A job is purged with all its
// evaluations, allocations and deployments, which are not listed apart;
// Weight counts them (the job included) for batching.
type Victim struct {
	Kind      Kind
	ID        string
	Namespace string // jobs only
	Reason    string
	Weight    int
}

// Result is what one collection deletes, in the input's order.
type Result struct {
	Victims []Victim
}

// Count returns how many victims of kind the result holds.
func (r Result) Count(kind Kind) int {
	n := 0
	for _, v := range r.Victims {
		if v.Kind == kind {
			n++
		}
	}
	return n
}

// Collect decides what to delete at now under th, by Nomad's core
// scheduler rules:
//   - a job that is stopped, or dead and not a periodic or parameterized
//     parent (a stopped parent without live children), whose allocations
//     are all terminal and evaluations all terminal, and whose last
//     activity (submit time, its evaluations' and allocations' modify
//     times) is at least th.Job ago, is purged with them and its
//     deployments;
//   - a terminal evaluation at least th.Eval (th.BatchEval for batch
//     jobs) old goes when all its allocations may go, and its allocations
//     that may go go anyway (allocEligible: what a live job's rescheduling
//     needs stays; a batch job that is not dead keeps its current
//     version's allocations);
//   - a terminal deployment at least th.Deployment old with no live
//     allocation;
//   - a down node at least th.Node old with no live allocation.
//
// It is pure: the same input, now and thresholds give the same result.
func Collect(in Input, now time.Time, th Thresholds) Result {
	ix := index(in)
	var res Result
	purged := map[structs.NamespacedID]bool{}
	for _, j := range in.Jobs {
		if w, ok := ix.jobCollectable(j, now.Add(-th.Job)); ok {
			purged[j.NamespacedID()] = true
			res.Victims = append(res.Victims, Victim{Kind: KindJob, ID: j.ID, Namespace: j.Namespace,
				Reason: "job " + j.Status + " past job_gc_threshold", Weight: w})
		}
	}
	res.Victims = append(res.Victims, ix.evalVictims(in, purged, now, th)...)
	res.Victims = append(res.Victims, ix.deploymentVictims(in, purged, now.Add(-th.Deployment))...)
	for _, n := range in.Nodes {
		if n.Status != structs.NodeStatusDown || time.Unix(0, n.StatusUpdatedAt).After(now.Add(-th.Node)) {
			continue
		}
		if anyLive(ix.allocsByNode[n.ID]) {
			continue
		}
		res.Victims = append(res.Victims, Victim{Kind: KindNode, ID: n.ID, Reason: "node down past node_gc_threshold", Weight: 1})
	}
	return res
}

// indexes groups the input by job, eval, node and parent.
type indexes struct {
	jobs         map[structs.NamespacedID]*structs.Job
	allocsByJob  map[structs.NamespacedID][]*structs.Allocation
	evalsByJob   map[structs.NamespacedID][]*structs.Evaluation
	allocsByEval map[string][]*structs.Allocation
	allocsByNode map[string][]*structs.Allocation
	children     map[structs.NamespacedID][]*structs.Job
}

func index(in Input) *indexes {
	ix := &indexes{
		jobs:         map[structs.NamespacedID]*structs.Job{},
		allocsByJob:  map[structs.NamespacedID][]*structs.Allocation{},
		evalsByJob:   map[structs.NamespacedID][]*structs.Evaluation{},
		allocsByEval: map[string][]*structs.Allocation{},
		allocsByNode: map[string][]*structs.Allocation{},
		children:     map[structs.NamespacedID][]*structs.Job{},
	}
	for _, j := range in.Jobs {
		ix.jobs[j.NamespacedID()] = j
		if j.ParentID != "" {
			p := structs.NamespacedID{Namespace: j.Namespace, ID: j.ParentID}
			ix.children[p] = append(ix.children[p], j)
		}
	}
	for _, a := range in.Allocs {
		k := structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}
		ix.allocsByJob[k] = append(ix.allocsByJob[k], a)
		ix.allocsByEval[a.EvalID] = append(ix.allocsByEval[a.EvalID], a)
		ix.allocsByNode[a.NodeID] = append(ix.allocsByNode[a.NodeID], a)
	}
	for _, e := range in.Evals {
		k := structs.NamespacedID{Namespace: e.Namespace, ID: e.JobID}
		ix.evalsByJob[k] = append(ix.evalsByJob[k], e)
	}
	return ix
}

// jobCollectable reports whether j is purged (see Collect) and its weight.
func (ix *indexes) jobCollectable(j *structs.Job, cutoff time.Time) (int, bool) {
	if !j.GCEligible() {
		return 0, false
	}
	k := j.NamespacedID()
	allocs, evals := ix.allocsByJob[k], ix.evalsByJob[k]
	if anyLive(allocs) {
		return 0, false
	}
	last := j.SubmitTime
	for _, e := range evals {
		if !e.TerminalStatus() {
			return 0, false
		}
		last = max(last, e.ModifyTime)
	}
	for _, a := range allocs {
		last = max(last, a.ModifyTime)
	}
	if time.Unix(0, last).After(cutoff) {
		return 0, false
	}
	if j.IsParent() {
		for _, c := range ix.children[k] {
			if c.Status != structs.JobStatusDead {
				return 0, false
			}
		}
	}
	return 1 + len(allocs) + len(evals), true
}

func anyLive(allocs []*structs.Allocation) bool {
	for _, a := range allocs {
		if !a.GCSafe() {
			return true
		}
	}
	return false
}
