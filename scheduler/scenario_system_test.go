package scheduler_test

import (
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// systemNodeEvals creates a node-update eval for nodeID for every system and
// sysbatch job not stopped that has none pending for the node yet, as the
// server does when a node registers or changes status or eligibility.
func (sc *scenario) systemNodeEvals(nodeID string) {
	pending := map[string]bool{}
	for _, e := range sc.store.Evals() {
		if e.Status == structs.EvalStatusPending && e.NodeID == nodeID {
			pending[e.JobID] = true
		}
	}
	for _, j := range sc.store.Jobs() {
		if j.Stopped() || pending[j.ID] || (j.Type != structs.JobTypeSystem && j.Type != structs.JobTypeSysBatch) {
			continue
		}
		e := sc.newEval(j, structs.EvalTriggerNodeUpdate)
		e.NodeID = nodeID
		sc.store.UpsertEval(e)
	}
}

// allocNamed reports whether a is named ref: "<name>" or, to pick one of the
// allocations a system job has on every node, "<name>@<node>".
func allocNamed(a *structs.Allocation, ref string) bool {
	name, node, ok := strings.Cut(ref, "@")
	return a.Name == name && (!ok || a.NodeID == node)
}
