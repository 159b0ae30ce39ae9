package broker

import (
	"github.com/nomadish/nomadish/structs"
)

// wakes reports whether a capacity change on a node of one of classes may
// let e place more, as Nomad's BlockedEvals decides: yes if e escaped the
// class cache (a constraint classes cannot tell), recorded no class, or
// found one of the classes eligible or never saw it (a class that
// appeared after its snapshot); no if it found them all ineligible.
func wakes(e *structs.Evaluation, classes []string) bool {
	if e.EscapedComputedClass || len(e.ClassEligibility) == 0 {
		return true
	}
	for _, c := range classes {
		if elig, seen := e.ClassEligibility[c]; !seen || elig {
			return true
		}
	}
	return false
}

// missedUnblock reports whether eval, planned against its SnapshotIndex,
// may have missed a capacity change passed to Unblock or UnblockClasses
// since (a change on a class it found ineligible is not missed). Evals
// without a snapshot index are taken as current. Called with mu held.
func (b *BlockedEvals) missedUnblock(eval *structs.Evaluation) bool {
	snap := eval.SnapshotIndex
	switch {
	case snap == 0:
		return false
	case snap < b.unblockIndex:
		return true
	case snap >= b.classMax:
		return false
	}
	var changed []string // not empty: some class changed after snap
	for class, idx := range b.classIndex {
		if idx > snap {
			changed = append(changed, class)
		}
	}
	return wakes(eval, changed)
}

// UnblockClasses is Unblock for a capacity change at index on nodes of
// the given computed classes only: it enqueues (as copies, Status still
// blocked) and forgets the tracked evals the change may help (wakes) and
// keeps those that found every one of the classes ineligible. An empty
// classes is Unblock.
func (b *BlockedEvals) UnblockClasses(index uint64, classes []string) {
	if len(classes) == 0 {
		b.Unblock(index)
		return
	}
	b.mu.Lock()
	if !b.enabled {
		b.mu.Unlock()
		return
	}
	for _, c := range classes {
		if index > b.classIndex[c] {
			b.classIndex[c] = index
		}
	}
	b.classMax = max(b.classMax, index)
	var evals []*structs.Evaluation
	for k, e := range b.byJob {
		if wakes(e, classes) {
			evals = append(evals, e)
			delete(b.byJob, k)
		}
	}
	b.mu.Unlock()
	for _, e := range evals {
		b.enq.Enqueue(e.Copy())
	}
}
