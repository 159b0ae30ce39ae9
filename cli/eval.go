package cli

import (
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// evalStatusCommand is `eval status [-verbose] EVAL`.
func evalStatusCommand(m *Meta, args []string) int {
	f := m.newFlags("eval status", "[options] EVAL")
	verbose := f.Bool("verbose", false, "show full IDs")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the evaluation ID or prefix")
	}
	c := m.client(f)
	id, ok := resolveID(m, evalMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	e, _, err := c.evaluation(id, 0, 0)
	if err != nil {
		return m.errorf("querying evaluation: %v", err)
	}
	now := m.Now()
	kv(m.Out,
		"ID", shortID(e.ID, *verbose),
		"Create Time", relTime(now, unixNano(e.CreateTime)),
		"Modify Time", relTime(now, unixNano(e.ModifyTime)),
		"Status", e.Status,
		"Status Description", orNone(e.StatusDescription),
		"Type", e.Type,
		"TriggeredBy", e.TriggeredBy,
		"Job ID", e.JobID,
		"Priority", strconv.Itoa(e.Priority),
		"Placement Failures", strconv.FormatBool(len(e.FailedTGAllocs) > 0),
		"Previous Eval", orNone(shortID(e.PreviousEval, *verbose)),
		"Next Eval", orNone(shortID(e.NextEval, *verbose)),
		"Blocked Eval", orNone(shortID(e.BlockedEval, *verbose)),
	)
	if len(e.FailedTGAllocs) > 0 {
		fmt.Fprintln(m.Out, "\nFailed Placements")
		printFailedTGAllocs(m.Out, e.FailedTGAllocs, "")
	}
	return exitOK
}

// printFailedTGAllocs explains each group's failed placements: why nodes
// were filtered out or exhausted, as Nomad's formatAllocMetrics does.
func printFailedTGAllocs(w io.Writer, failed map[string]*structs.AllocMetric, indent string) {
	groups := make([]string, 0, len(failed))
	for g := range failed {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		metric := failed[g]
		if metric == nil {
			metric = &structs.AllocMetric{}
		}
		n := metric.CoalescedFailures + 1
		plural := ""
		if n > 1 {
			plural = "s"
		}
		fmt.Fprintf(w, "%sTask Group %q (failed to place %d allocation%s):\n", indent, g, n, plural)
		for _, line := range metricLines(metric) {
			fmt.Fprintf(w, "%s  * %s\n", indent, line)
		}
	}
}

// metricLines are the reasons in one AllocMetric, in a stable order.
func metricLines(m *structs.AllocMetric) []string {
	var out []string
	if m.NodesEvaluated == 0 {
		out = append(out, "No nodes were eligible for evaluation")
	}
	for _, dc := range sortedKeys(m.NodesAvailable) {
		if m.NodesAvailable[dc] == 0 {
			out = append(out, fmt.Sprintf("No nodes are available in datacenter %q", dc))
		}
	}
	for _, k := range sortedKeys(m.ClassFiltered) {
		out = append(out, fmt.Sprintf("Class %q: %d nodes excluded by filter", k, m.ClassFiltered[k]))
	}
	for _, k := range sortedKeys(m.ConstraintFiltered) {
		out = append(out, fmt.Sprintf("Constraint %q: %d nodes excluded by filter", k, m.ConstraintFiltered[k]))
	}
	if m.NodesExhausted > 0 {
		out = append(out, fmt.Sprintf("Resources exhausted on %d nodes", m.NodesExhausted))
	}
	for _, k := range sortedKeys(m.ClassExhausted) {
		out = append(out, fmt.Sprintf("Class %q exhausted on %d nodes", k, m.ClassExhausted[k]))
	}
	for _, k := range sortedKeys(m.DimensionExhausted) {
		out = append(out, fmt.Sprintf("Dimension %q exhausted on %d nodes", k, m.DimensionExhausted[k]))
	}
	for _, q := range m.QuotaExhausted {
		out = append(out, fmt.Sprintf("Quota limit hit %q", q))
	}
	return out
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
