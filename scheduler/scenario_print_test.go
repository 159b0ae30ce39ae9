package scheduler_test

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func (sc *scenario) print(what string, rest []string) string {
	switch what {
	case "plan":
		if len(sc.store.Plans) == sc.plans {
			return "no plan"
		}
		return sc.planText(sc.store.Plans[len(sc.store.Plans)-1], nil)
	case "plans":
		var out []string
		for i := sc.plans; i < len(sc.store.Plans); i++ {
			out = append(out, fmt.Sprintf("attempt %d:", i-sc.plans+1), sc.planText(sc.store.Plans[i], sc.store.Results[i]))
		}
		return strings.Join(out, "\n")
	case "evals":
		var out []string
		for _, e := range sc.store.Evals() {
			out = append(out, sc.evalLine(e))
			out = append(out, failedText(e.FailedTGAllocs)...)
		}
		return strings.Join(out, "\n")
	case "allocs":
		return sc.allocsText()
	case "nodes":
		return sc.nodesText()
	case "ports":
		return sc.portsText()
	case "cores":
		return sc.coresText()
	case "metrics":
		return sc.metricsText(rest)
	}
	sc.t.Fatalf("unknown print %q", what)
	return ""
}

func (sc *scenario) planText(p *structs.Plan, r *structs.PlanResult) string {
	var out []string
	for _, node := range nodeKeys(p.NodeUpdate, p.NodeAllocation, p.NodePreemptions) {
		var parts []string
		for _, a := range sortedByName(p.NodePreemptions[node]) {
			parts = append(parts, "preempt "+a.Name+" (for "+sc.allocName(a.PreemptedByAllocation)+")")
		}
		for _, a := range sortedByName(p.NodeUpdate[node]) {
			s := "stop " + a.Name + " (" + a.DesiredDescription + ")"
			if a.ClientStatus == structs.AllocClientStatusLost {
				s += " lost"
			}
			parts = append(parts, s)
		}
		for _, a := range sortedByName(p.NodeAllocation[node]) {
			if a.TerminalStatus() { // an in-place update of a failed alloc
				parts = append(parts, "update "+a.Name+" (followup "+sc.name(a.FollowupEvalID)+")")
				continue
			}
			if a.CreateIndex != 0 && a.CreateIndex != a.ModifyIndex { // an in-place update to a new job version
				parts = append(parts, "update "+a.Name+" (in place)")
				continue
			}
			s := "place " + a.Name
			if a.DeploymentStatus.IsCanary() {
				s += " (canary)"
			}
			if a.PreviousAllocation != "" {
				s += " (replaces " + sc.allocName(a.PreviousAllocation) + ")"
			}
			parts = append(parts, s)
		}
		line := fmt.Sprintf("  %s: %s", node, strings.Join(parts, ", "))
		if r != nil && contains(r.RejectedNodes, node) {
			line += " [rejected]"
		}
		out = append(out, line)
	}
	if len(out) == 0 {
		return "  (empty)"
	}
	return strings.Join(out, "\n")
}

func (sc *scenario) allocName(id string) string {
	for _, a := range sc.store.Allocs() {
		if a.ID == id {
			return a.Name + "@" + a.NodeID
		}
	}
	return "?"
}

func (sc *scenario) evalLine(e *structs.Evaluation) string {
	s := fmt.Sprintf("%s %s %s: %s", sc.name(e.ID), e.TriggeredBy, e.JobID, e.Status)
	if e.StatusDescription != "" {
		s += " (" + e.StatusDescription + ")"
	}
	if len(e.QueuedAllocations) > 0 {
		var q []string
		for _, g := range sortedKeys(e.QueuedAllocations) {
			q = append(q, fmt.Sprintf("%s:%d", g, e.QueuedAllocations[g]))
		}
		s += " queued=" + strings.Join(q, ",")
	}
	if len(e.FailedTGAllocs) > 0 {
		s += " failed=" + strings.Join(sortedKeys(e.FailedTGAllocs), ",")
	}
	if e.BlockedEval != "" {
		s += " blocked=" + sc.name(e.BlockedEval)
	}
	if e.PreviousEval != "" {
		s += " previous=" + sc.name(e.PreviousEval)
	}
	if !e.WaitUntil.IsZero() {
		s += " wait_until=" + sc.at(e.WaitUntil)
	}
	return s
}

func failedText(m map[string]*structs.AllocMetric) []string {
	var out []string
	for _, g := range sortedKeys(m) {
		out = append(out, "  "+g+": "+metricLine(m[g]))
	}
	return out
}

func metricLine(m *structs.AllocMetric) string {
	s := fmt.Sprintf("evaluated=%d filtered=%d exhausted=%d", m.NodesEvaluated, m.NodesFiltered, m.NodesExhausted)
	if m.CoalescedFailures > 0 {
		s += fmt.Sprintf(" coalesced=%d", m.CoalescedFailures)
	}
	s += " available=" + countsText(m.NodesAvailable)
	if len(m.ConstraintFiltered) > 0 {
		s += " constraint=" + countsText(m.ConstraintFiltered)
	}
	if len(m.DimensionExhausted) > 0 {
		s += " dimension=" + countsText(m.DimensionExhausted)
	}
	return s
}

func countsText(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s:%d", k, m[k]))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

func (sc *scenario) allocsText() string {
	var out []string
	for _, a := range sc.store.Allocs() {
		s := fmt.Sprintf("%s %s %s/%s", a.Name, a.NodeID, a.DesiredStatus, a.ClientStatus)
		if a.FollowupEvalID != "" {
			s += " followup=" + sc.name(a.FollowupEvalID)
		}
		if rt := a.RescheduleTracker; rt != nil {
			var ev []string
			for _, e := range rt.Events {
				ev = append(ev, fmt.Sprintf("{at=%s prev=%s delay=%s}", sc.at(time.Unix(0, e.RescheduleTime)), sc.allocName(e.PrevAllocID), e.Delay))
			}
			s += " reschedules=[" + strings.Join(ev, " ") + "]"
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "(none)"
	}
	return strings.Join(out, "\n")
}

func (sc *scenario) nodesText() string {
	nodes, _ := sc.store.Nodes()
	var out []string
	for _, n := range nodes {
		allocs, _ := sc.store.AllocsByNode(n.ID)
		_, _, used := structs.AllocsFit(n, allocs)
		live := 0
		for _, a := range allocs {
			if !a.TerminalStatus() {
				live++
			}
		}
		c := n.Comparable()
		out = append(out, fmt.Sprintf("%s %s %s cpu=%d/%d mem=%d/%d allocs=%d",
			n.ID, n.Datacenter, n.Status, used.CpuShares, c.CpuShares, used.MemoryMB, c.MemoryMB, live))
	}
	return strings.Join(out, "\n")
}

func (sc *scenario) metricsText(rest []string) string {
	if len(rest) != 1 {
		sc.t.Fatalf("print metrics <alloc name>")
	}
	var a *structs.Allocation
	for _, x := range sc.store.Allocs() {
		if allocNamed(x, rest[0]) {
			a = x
		}
	}
	if a == nil || a.Metrics == nil {
		sc.t.Fatalf("no alloc %q with metrics", rest[0])
	}
	out := []string{metricLine(a.Metrics)}
	for _, s := range a.Metrics.ScoreMetaData {
		out = append(out, scoreLine(s))
	}
	return strings.Join(out, "\n")
}

func nodeKeys(ms ...map[string][]*structs.Allocation) []string {
	set := map[string][]*structs.Allocation{}
	for _, m := range ms {
		for k, v := range m {
			set[k] = v
		}
	}
	return sortedKeys(set)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedByName(as []*structs.Allocation) []*structs.Allocation {
	out := append([]*structs.Allocation(nil), as...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Index() != out[j].Index() {
			return out[i].Index() < out[j].Index()
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// at renders t as the time since the scenario's start, e.g. "T+1m30s".
func (sc *scenario) at(t time.Time) string {
	return "T+" + t.Sub(scenarioStart).String()
}
