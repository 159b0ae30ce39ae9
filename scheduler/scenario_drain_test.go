package scheduler_test

import "github.com/nomadish/nomadish/structs"

// allocMigrate marks the named live allocs for migration, as the drainer
// does, and creates one node-drain eval per job.
func (sc *scenario) allocMigrate(names []string) string {
	yes := true
	jobs := map[string]bool{}
	for _, name := range names {
		var target *structs.Allocation
		for _, a := range sc.store.Allocs() {
			if allocNamed(a, name) && !a.TerminalStatus() {
				target = a
			}
		}
		if target == nil {
			sc.t.Fatalf("no live alloc %q", name)
		}
		a := target.Copy()
		a.DesiredTransition.Migrate = &yes
		sc.store.UpsertAllocs(a)
		if !jobs[a.JobID] {
			jobs[a.JobID] = true
			e := sc.newEval(a.Job, structs.EvalTriggerNodeDrain)
			e.NodeID = a.NodeID
			sc.store.UpsertEval(e)
		}
	}
	return ""
}
