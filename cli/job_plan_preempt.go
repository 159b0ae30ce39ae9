package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/nomadish/nomadish/structs"
)

// printPreemptions lists the allocations a dry run would evict, as Nomad's
// `job plan` does ("Preemptions:" with alloc ID, job and group); nothing
// when there are none.
func printPreemptions(w io.Writer, ann *structs.PlanAnnotations) {
	if ann == nil || len(ann.PreemptedAllocs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nPreemptions:")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Alloc ID\tJob ID\tTask Group")
	for _, a := range ann.PreemptedAllocs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", shortID(a.ID, false), a.JobID, a.TaskGroup)
	}
	tw.Flush()
}

// allocPreemptionPairs are the `alloc status` lines of what preemption did
// to or for the allocation (Nomad's "Preempted By Allocation" and
// "Preempted Allocations"); none when it played no part.
func allocPreemptionPairs(a *structs.Allocation, verbose bool) []string {
	var pairs []string
	if a.PreemptedByAllocation != "" {
		pairs = append(pairs, "Preempted By Allocation", shortID(a.PreemptedByAllocation, verbose))
	}
	if len(a.PreemptedAllocations) > 0 {
		ids := make([]string, len(a.PreemptedAllocations))
		for i, id := range a.PreemptedAllocations {
			ids[i] = shortID(id, verbose)
		}
		pairs = append(pairs, "Preempted Allocations", strings.Join(ids, ", "))
	}
	return pairs
}
