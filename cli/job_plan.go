package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// Exit codes of `job plan`, as Nomad's.
const (
	planNoChanges = 0
	planChanges   = 1
	planError     = 255
)

// jobPlanCommand is `job plan FILE`: a dry run of the scheduler. Exit 0 when
// nothing would change, 1 when allocations would be created or destroyed,
// 255 on error.
func jobPlanCommand(m *Meta, args []string) int {
	f := m.newFlags("job plan", "[options] FILE")
	vars := jobVarFlags(f)
	whyNode := f.String("why-not-node", "", "also print every reason NODE (ID, prefix or name) cannot take each group")
	whyGroup := f.String("why-not-group", "", "with -why-not-node: only this group")
	pos, code, ok := m.parse(f, args)
	if !ok {
		if code == exitOK {
			return code
		}
		return planError
	}
	if len(pos) != 1 {
		m.wrongArgs(f, "one argument: the job file")
		return planError
	}
	job, _ := m.parseJobFile(pos[0], vars)
	if job == nil {
		return planError
	}
	if *whyGroup != "" && *whyNode == "" {
		m.errorf("parsing flags: -why-not-group needs -why-not-node")
		return planError
	}
	resp, err := m.client(f).planJobWhyNot(job, *whyNode, *whyGroup)
	if err != nil {
		m.errorf("during plan: %v", err)
		return planError
	}
	changes := printPlan(m.Out, job, resp)
	printCheckIndexHint(m.Out, resp.JobModifyIndex, pos[0])
	printVerdicts(m.Out, *whyNode, resp.NodeVerdicts)
	if changes {
		return planChanges
	}
	return planNoChanges
}

// printPlan prints the per-group changes and the scheduler's dry-run
// outcome, and reports whether any allocation would be created or destroyed.
func printPlan(w io.Writer, job *structs.Job, resp *structs.JobPlanResponse) bool {
	updates := map[string]*structs.DesiredUpdates{}
	if resp.Annotations != nil && resp.Annotations.DesiredTGUpdates != nil {
		updates = resp.Annotations.DesiredTGUpdates
	}
	names := make([]string, 0, len(updates))
	for name := range updates {
		names = append(names, name)
	}
	sort.Strings(names)
	changes := false
	if resp.Diff != nil {
		fmt.Fprint(w, formatJobDiff(resp.Diff, false))
	} else {
		fmt.Fprintf(w, "Job: %q\n", job.ID)
	}
	for _, name := range names {
		u := updates[name]
		if u.Place+u.Stop+u.Migrate+u.DestructiveUpdate+u.InPlaceUpdate+u.Canary+u.Preemptions > 0 {
			changes = true
		}
		if resp.Diff == nil {
			fmt.Fprintf(w, "%sTask Group: %q (%s)\n", updateMark(u), name, updateCounts(u))
		}
	}
	fmt.Fprintln(w, "\nScheduler dry-run:")
	if len(resp.FailedTGAllocs) == 0 {
		fmt.Fprintln(w, "- All tasks successfully allocated.")
	} else {
		fmt.Fprintln(w, "- WARNING: Failed to place all allocations.")
		printFailedTGAllocs(w, resp.FailedTGAllocs, "  ")
	}
	printPreemptions(w, resp.Annotations)
	if resp.Warnings != "" {
		fmt.Fprintf(w, "\nJob Warnings:\n%s\n", resp.Warnings)
	}
	fmt.Fprintf(w, "\nJob Modify Index: %d\n", resp.JobModifyIndex)
	return changes
}

func updateMark(u *structs.DesiredUpdates) string {
	create := u.Place+u.DestructiveUpdate+u.Canary > 0
	destroy := u.Stop+u.DestructiveUpdate > 0
	switch {
	case create && destroy, u.InPlaceUpdate+u.Migrate > 0:
		return "+/- "
	case create:
		return "+ "
	case destroy:
		return "- "
	}
	return "  "
}

// updateCounts is "1 create, 2 destroy, 3 ignore" (only the counts that are
// not zero; "no changes" if all are).
func updateCounts(u *structs.DesiredUpdates) string {
	var parts []string
	add := func(n uint64, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(u.Place, "create")
	add(u.Stop, "destroy")
	add(u.Migrate, "migrate")
	add(u.InPlaceUpdate, "in-place update")
	add(u.DestructiveUpdate, "create/destroy update")
	add(u.Canary, "canary")
	add(u.Preemptions, "preempt")
	add(u.Ignore, "ignore")
	if len(parts) == 0 {
		return "no changes"
	}
	return strings.Join(parts, ", ")
}
