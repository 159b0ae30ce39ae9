package cli

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// maxFailedTGs is how many groups' placement failures `job status` shows
// (Nomad's limit); `eval status` shows them all.
const maxFailedTGs = 5

// printFailedTGAllocs explains each group's failed placements: why nodes
// were filtered out or exhausted, as Nomad's formatAllocMetrics does, with
// the counts and the per-datacenter availability first.
func printFailedTGAllocs(w io.Writer, failed map[string]*structs.AllocMetric, indent string) {
	for _, g := range sortedKeys(failed) {
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
		printMetricLines(w, metric, indent+"  ")
	}
}

// printMetricLines writes metricLines as "<indent>* line".
func printMetricLines(w io.Writer, m *structs.AllocMetric, indent string) {
	for _, line := range metricLines(m) {
		fmt.Fprintf(w, "%s* %s\n", indent, line)
	}
}

// metricLines are the reasons in one AllocMetric, in a stable order: the
// node counts and availability per datacenter, then Nomad's lines (empty
// datacenters, class and constraint filters with their text, exhausted
// resources by class and dimension, quotas).
func metricLines(m *structs.AllocMetric) []string {
	out := []string{fmt.Sprintf("Nodes evaluated: %d (of %d in pool), filtered: %d, exhausted: %d",
		m.NodesEvaluated, m.NodesInPool, m.NodesFiltered, m.NodesExhausted)}
	if len(m.NodesAvailable) > 0 {
		var avail []string
		for _, dc := range sortedKeys(m.NodesAvailable) {
			avail = append(avail, fmt.Sprintf("%s=%d", dc, m.NodesAvailable[dc]))
		}
		out = append(out, "Nodes available per datacenter: "+strings.Join(avail, ", "))
	}
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// printPlacementMetrics is the "Placement Metrics" section of `alloc status
// -verbose`: how the allocation's node was chosen, and the score table of
// the best nodes.
func printPlacementMetrics(w io.Writer, m *structs.AllocMetric) {
	fmt.Fprintln(w, "\nPlacement Metrics")
	if m == nil {
		fmt.Fprintln(w, "  No placement metrics recorded")
		return
	}
	printMetricLines(w, m, "  ")
	fmt.Fprintf(w, "  * Allocation time: %s\n", m.AllocationTime)
	if m.CoalescedFailures > 0 {
		fmt.Fprintf(w, "  * Coalesced failures: %d\n", m.CoalescedFailures)
	}
	printScoreTable(w, m.ScoreMetaData)
}

// printScoreTable writes one row per scored node: the node ID, each
// scorer's score (every scorer any row has, sorted by name) and the final
// score, like Nomad's placement metrics table.
func printScoreTable(w io.Writer, metas []*structs.NodeScoreMeta) {
	if len(metas) == 0 {
		return
	}
	seen := map[string]bool{}
	for _, sm := range metas {
		for name := range sm.Scores {
			seen[name] = true
		}
	}
	scorers := sortedKeys(seen)
	rows := [][]string{append(append([]string{"Node"}, scorers...), "final score")}
	for _, sm := range metas {
		row := []string{sm.NodeID}
		for _, name := range scorers {
			if v, ok := sm.Scores[name]; ok {
				row = append(row, formatScore(v))
			} else {
				row = append(row, "-")
			}
		}
		rows = append(rows, append(row, formatScore(sm.NormScore)))
	}
	table(w, rows)
}

// formatScore is a score with three significant digits, as Nomad prints it.
func formatScore(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

// latestFailedEval returns the newest evaluation with failed placements when
// one of evals is still blocked (its placements are still owed), as Nomad's
// `job status` decides; nil otherwise.
func latestFailedEval(evals []*structs.Evaluation) *structs.Evaluation {
	var latest *structs.Evaluation
	blocked := false
	for _, e := range evals {
		if len(e.FailedTGAllocs) > 0 && (latest == nil || latest.CreateIndex < e.CreateIndex) {
			latest = e
		}
		if e.Status == structs.EvalStatusBlocked {
			blocked = true
		}
	}
	if !blocked {
		return nil
	}
	return latest
}

// printPlacementFailure is the "Placement Failure" section of `job status`:
// why the groups of the latest failed eval could not be placed.
func printPlacementFailure(w io.Writer, e *structs.Evaluation, verbose bool) {
	if e == nil || len(e.FailedTGAllocs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nPlacement Failure")
	groups := sortedKeys(e.FailedTGAllocs)
	for i, g := range groups {
		if i >= maxFailedTGs {
			fmt.Fprintf(w, "\nPlacement failures truncated. To see the remainder run:\nnomadish eval status %s\n", shortID(e.ID, verbose))
			return
		}
		fmt.Fprintf(w, "Task Group %q:\n", g)
		m := e.FailedTGAllocs[g]
		if m == nil {
			m = &structs.AllocMetric{}
		}
		printMetricLines(w, m, "  ")
		if i != len(groups)-1 {
			fmt.Fprintln(w)
		}
	}
}

// printVerdicts prints, per group, the verdict of the node asked about
// (node, "" when none was) from `job plan -why-not-node`: each failed check
// and each exhausted dimension on its own line, or that the node is feasible
// and its scores.
func printVerdicts(w io.Writer, node string, verdicts map[string]*structs.NodeVerdict) {
	if len(verdicts) == 0 {
		if node != "" {
			fmt.Fprintf(w, "\nThe server returned no verdict for node %q (it does not support -why-not-node).\n", node)
		}
		return
	}
	for _, g := range sortedKeys(verdicts) {
		v := verdicts[g]
		if v == nil {
			continue
		}
		name := nodeLabel(v)
		fmt.Fprintln(w)
		switch {
		case v.Feasible && v.Fits:
			fmt.Fprintf(w, "node %s is feasible for group %q; score %s\n", name, g, verdictScores(v.Scores))
			continue
		case v.Feasible:
			fmt.Fprintf(w, "node %s is feasible for group %q but lacks resources:\n", name, g)
		default:
			fmt.Fprintf(w, "node %s is not feasible for group %q:\n", name, g)
		}
		for _, f := range v.Failures {
			fmt.Fprintf(w, "  * %s\n", f)
		}
		for _, x := range v.Exhausted {
			fmt.Fprintf(w, "  * exhausted %s\n", x)
		}
		if len(v.Preemptions) > 0 {
			fmt.Fprintf(w, "  * would fit by preempting: %s\n", strings.Join(v.Preemptions, ", "))
		}
	}
}

// nodeLabel is `"name" (short id)`, or the quoted ID for a nameless node.
func nodeLabel(v *structs.NodeVerdict) string {
	if v.NodeName == "" || v.NodeName == v.NodeID {
		return strconv.Quote(v.NodeID)
	}
	return fmt.Sprintf("%q (%s)", v.NodeName, shortID(v.NodeID, false))
}

// verdictScores is "0.466 (binpack 0.466, ...)": the final score, then each
// scorer's.
func verdictScores(scores map[string]float64) string {
	var parts []string
	for _, k := range sortedKeys(scores) {
		if k != "final" {
			parts = append(parts, k+" "+formatScore(scores[k]))
		}
	}
	final := formatScore(scores["final"])
	if len(parts) == 0 {
		return final
	}
	return final + " (" + strings.Join(parts, ", ") + ")"
}
