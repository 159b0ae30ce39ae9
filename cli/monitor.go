package cli

import (
	"fmt"
	"sort"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// monitorWait is how long each blocking query of the monitor waits.
const monitorWait = 30 * time.Second

// monitor follows an evaluation until it is finished, printing what happens
// like Nomad's eval monitor. It uses blocking queries, never a sleep.
type monitor struct {
	m       *Meta
	c       *apiClient
	verbose bool
}

// run follows evalID (and its NextEval chain) and returns the exit code:
// 0 when all placements were made, 2 when some failed, 1 on error.
func (mon *monitor) run(evalID string) int {
	w := mon.m.Out
	fmt.Fprintf(w, "==> Monitoring evaluation %q\n", shortID(evalID, mon.verbose))
	failed := false
	for evalID != "" {
		eval, err := mon.waitTerminal(evalID)
		if err != nil {
			return mon.m.errorf("reading evaluation: %v", err)
		}
		if err := mon.printAllocs(eval); err != nil {
			return mon.m.errorf("reading allocations: %v", err)
		}
		if eval.Status != structs.EvalStatusComplete || len(eval.FailedTGAllocs) > 0 {
			failed = true
		}
		mon.printOutcome(eval)
		evalID = eval.NextEval
		if evalID != "" {
			fmt.Fprintf(w, "==> Monitoring next evaluation %q\n", shortID(evalID, mon.verbose))
		}
	}
	if failed {
		return exitPlaceFail
	}
	return exitOK
}

// waitTerminal blocks until the eval reaches a terminal status, printing
// what triggered it and each status change.
func (mon *monitor) waitTerminal(id string) (*structs.Evaluation, error) {
	w := mon.m.Out
	var index uint64
	status := ""
	for first := true; ; first = false {
		eval, idx, err := mon.c.evaluation(id, index, monitorWait)
		if err != nil {
			return nil, err
		}
		if first {
			printTrigger(mon.m, eval)
		}
		if status != "" && eval.Status != status {
			fmt.Fprintf(w, "    Evaluation status changed: %q -> %q\n", status, eval.Status)
		}
		status = eval.Status
		if eval.TerminalStatus() {
			return eval, nil
		}
		if idx <= index {
			// The server answered without blocking (no index header, or an
			// index that did not move): ask again past the eval's own index.
			idx = max(index+1, eval.ModifyIndex)
		}
		index = idx
	}
}

func printTrigger(m *Meta, eval *structs.Evaluation) {
	switch {
	case eval.NodeID != "":
		fmt.Fprintf(m.Out, "    Evaluation triggered by node %q\n", shortID(eval.NodeID, false))
	case eval.JobID != "":
		fmt.Fprintf(m.Out, "    Evaluation triggered by job %q\n", eval.JobID)
	}
}

// printAllocs prints the allocations the eval created.
func (mon *monitor) printAllocs(eval *structs.Evaluation) error {
	allocs, err := mon.c.evalAllocations(eval.ID)
	if err != nil {
		return err
	}
	sort.Slice(allocs, func(i, j int) bool { return allocs[i].Name < allocs[j].Name })
	for _, a := range allocs {
		if a.EvalID != eval.ID || a.DesiredStatus != structs.AllocDesiredStatusRun {
			continue
		}
		fmt.Fprintf(mon.m.Out, "    Allocation %q created: node %q, group %q\n",
			shortID(a.ID, mon.verbose), shortID(a.NodeID, mon.verbose), a.TaskGroup)
	}
	return nil
}

// printOutcome prints the final status and, when placements failed, why.
func (mon *monitor) printOutcome(eval *structs.Evaluation) {
	w := mon.m.Out
	id := shortID(eval.ID, mon.verbose)
	if len(eval.FailedTGAllocs) == 0 {
		fmt.Fprintf(w, "==> Evaluation %q finished with status %q\n", id, eval.Status)
		if eval.StatusDescription != "" && eval.Status != structs.EvalStatusComplete {
			fmt.Fprintf(w, "    %s\n", eval.StatusDescription)
		}
		return
	}
	fmt.Fprintf(w, "==> Evaluation %q finished with status %q but failed to place all allocations:\n", id, eval.Status)
	printFailedTGAllocs(w, eval.FailedTGAllocs, "    ")
	if eval.BlockedEval != "" {
		fmt.Fprintf(w, "    Evaluation %q waiting for additional capacity to place remainder\n",
			shortID(eval.BlockedEval, mon.verbose))
	}
}
