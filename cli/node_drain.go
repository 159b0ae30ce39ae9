package cli

import (
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// drainPollWait bounds each blocking query of the drain monitor, so a drain
// completing without an allocation change is noticed soon.
const drainPollWait = 2 * time.Second

// nodeDrainCommand is `node drain -enable|-disable [options] NODE`.
func nodeDrainCommand(m *Meta, args []string) int {
	f := m.newFlags("node drain", "-enable|-disable [options] NODE")
	enable := f.Bool("enable", false, "start draining the node")
	disable := f.Bool("disable", false, "stop draining the node")
	deadline := f.Duration("deadline", time.Hour, "time allowed for allocations to migrate before the rest are stopped")
	noDeadline := f.Bool("no-deadline", false, "no deadline: allocations migrate at their pace")
	force := f.Bool("force", false, "stop every allocation at once")
	ignoreSystem := f.Bool("ignore-system", false, "leave system job allocations on the node")
	keepIneligible := f.Bool("keep-ineligible", false, "with -disable: keep the node ineligible")
	detach := f.Bool("detach", false, "return at once instead of monitoring the drain")
	monitor := f.Bool("monitor", false, "monitor an existing drain")
	f.Bool("yes", false, "do not ask for confirmation")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the node ID or prefix")
	}
	if *enable == *disable && !*monitor {
		return m.errorf("parsing flags: exactly one of -enable or -disable is required")
	}
	if (*force && *noDeadline) || (*enable && *disable) {
		return m.errorf("parsing flags: -force and -no-deadline, -enable and -disable exclude each other")
	}
	c := m.client(f)
	id, ok := resolveID(m, nodeMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	if *monitor && !*enable && !*disable {
		return monitorDrain(m, c, id)
	}
	var spec *structs.DrainSpec
	if *enable {
		spec = &structs.DrainSpec{Deadline: *deadline, IgnoreSystemJobs: *ignoreSystem}
		switch {
		case *force:
			spec.Deadline = structs.DrainDeadlineForceImmediately
		case *noDeadline:
			spec.Deadline = 0
		}
	}
	if err := c.updateDrain(id, spec, *disable && !*keepIneligible); err != nil {
		return m.errorf("updating drain specification: %v", err)
	}
	if *disable {
		fmt.Fprintf(m.Out, "Node %q drain strategy unset\n", id)
		return exitOK
	}
	fmt.Fprintf(m.Out, "Node %q drain strategy set\n", id)
	if *detach {
		return exitOK
	}
	return monitorDrain(m, c, id)
}

// monitorDrain prints the drain's progress (Nomad's lines) until the node
// has no drain strategy left and every allocation told to stop has stopped.
func monitorDrain(m *Meta, c *apiClient, nodeID string) int {
	say := func(format string, args ...any) {
		fmt.Fprintf(m.Out, "%s: %s\n", m.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
	}
	say("Ctrl-C to stop monitoring: will not cancel the node drain")
	seen := map[string]*structs.Allocation{}
	var index uint64
	complete := false
	for {
		// The node first: a drain is complete only once its allocations
		// were told to stop, so the allocations read next show that.
		n, err := c.node(nodeID)
		if err != nil {
			return m.errorf("querying node: %v", err)
		}
		allocs, idx, err := c.nodeAllocations(nodeID, index, drainPollWait)
		if err != nil {
			return m.errorf("querying node allocations: %v", err)
		}
		index = idx
		sort.Slice(allocs, func(i, j int) bool { return allocs[i].ID < allocs[j].ID })
		for _, a := range allocs {
			reportAlloc(say, seen[a.ID], a)
			seen[a.ID] = a
		}
		if n.DrainStrategy == nil && !complete {
			say("Drain complete for node %s", nodeID)
			complete = true
		}
		if complete && stopping(allocs) == 0 {
			if live(allocs) == 0 {
				say("All allocations on node %q have stopped", nodeID)
			}
			return exitOK
		}
	}
}

// stopping counts allocations told to stop that still run.
func stopping(allocs []*structs.Allocation) int {
	n := 0
	for _, a := range allocs {
		if a.DesiredStatus != structs.AllocDesiredStatusRun && !a.ClientTerminalStatus() {
			n++
		}
	}
	return n
}

// live counts allocations the client has not finished.
func live(allocs []*structs.Allocation) int {
	n := 0
	for _, a := range allocs {
		if !a.ClientTerminalStatus() {
			n++
		}
	}
	return n
}

// reportAlloc prints what changed in an allocation since the monitor last
// saw it (prev nil: first sight).
func reportAlloc(say func(string, ...any), prev, a *structs.Allocation) {
	if a.DesiredTransition.ShouldMigrate() && (prev == nil || !prev.DesiredTransition.ShouldMigrate()) {
		say("Alloc %q marked for migration", a.ID)
	}
	stopping := a.DesiredStatus != structs.AllocDesiredStatusRun
	if stopping && (prev == nil || prev.DesiredStatus == structs.AllocDesiredStatusRun) && !a.ClientTerminalStatus() {
		say("Alloc %q draining", a.ID)
	}
	if prev != nil && prev.ClientStatus != a.ClientStatus {
		say("Alloc %q status %s -> %s", a.ID, prev.ClientStatus, a.ClientStatus)
	}
}

// nodeEligibilityCommand is `node eligibility -enable|-disable NODE`.
func nodeEligibilityCommand(m *Meta, args []string) int {
	f := m.newFlags("node eligibility", "-enable|-disable NODE")
	enable := f.Bool("enable", false, "mark the node eligible for scheduling")
	disable := f.Bool("disable", false, "mark the node ineligible for scheduling")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the node ID or prefix")
	}
	if *enable == *disable {
		return m.errorf("parsing flags: exactly one of -enable or -disable is required")
	}
	c := m.client(f)
	id, ok := resolveID(m, nodeMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	elig := structs.NodeSchedulingIneligible
	if *enable {
		elig = structs.NodeSchedulingEligible
	}
	if err := c.updateEligibility(id, elig); err != nil {
		return m.errorf("updating scheduling eligibility: %v", err)
	}
	fmt.Fprintf(m.Out, "Node %q scheduling eligibility set: %s for scheduling\n", id, elig)
	return exitOK
}

// printNodeDrainAndEvents adds the drain's deadline and the node's recent
// events to `node status NODE`.
func printNodeDrainAndEvents(m *Meta, n *structs.Node) {
	if d := n.DrainStrategy; d != nil {
		deadline := "none"
		switch {
		case d.Deadline < 0:
			deadline = "forced"
		case !d.ForceDeadline.IsZero():
			deadline = formatTime(d.ForceDeadline)
		}
		kv(m.Out, "Drain Started", formatTime(d.StartedAt), "Drain Deadline", deadline,
			"Drain Ignore System Jobs", fmt.Sprint(d.IgnoreSystemJobs))
	}
	if len(n.Events) == 0 {
		return
	}
	fmt.Fprintln(m.Out, "\nNode Events")
	rows := [][]string{{"Time", "Subsystem", "Message"}}
	events := n.Events
	if len(events) > 10 {
		events = events[len(events)-10:]
	}
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		rows = append(rows, []string{formatTime(e.Timestamp), e.Subsystem, e.Message})
	}
	table(m.Out, rows)
}

// updateDrain is POST /v1/node/:id/drain (spec nil cancels).
func (c *apiClient) updateDrain(id string, spec *structs.DrainSpec, markEligible bool) error {
	body := map[string]any{"NodeID": id, "DrainSpec": spec, "MarkEligible": markEligible}
	_, err := c.do(http.MethodPost, "/v1/node/"+esc(id)+"/drain", nil, body, nil)
	return err
}

// updateEligibility is POST /v1/node/:id/eligibility.
func (c *apiClient) updateEligibility(id, elig string) error {
	body := map[string]any{"NodeID": id, "Eligibility": elig}
	_, err := c.do(http.MethodPost, "/v1/node/"+esc(id)+"/eligibility", nil, body, nil)
	return err
}

// nodeAllocations is GET /v1/node/:id/allocations, blocking past index if
// > 0.
func (c *apiClient) nodeAllocations(id string, index uint64, wait time.Duration) ([]*structs.Allocation, uint64, error) {
	var out []*structs.Allocation
	idx, err := c.get("/v1/node/"+esc(id)+"/allocations", blocking(index, wait), &out)
	return out, idx, err
}
