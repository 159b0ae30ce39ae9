package cli

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// allocStatusCommand is `alloc status [-verbose] [-stats] ALLOC`: the
// allocation's info, then each task's state, resources (with -stats, the
// usage beside them: alloc_stats.go) and recent events.
func allocStatusCommand(m *Meta, args []string) int {
	f := m.newFlags("alloc status", "[options] ALLOC")
	verbose := f.Bool("verbose", false, "show full IDs and the placement metrics with node scores")
	withStats := f.Bool("stats", false, "show each running task's CPU and memory usage")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the allocation ID or prefix")
	}
	c := m.client(f)
	id, ok := resolveID(m, allocMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	a, err := c.allocation(id)
	if err != nil {
		return m.errorf("querying allocation: %v", err)
	}
	if code, done := ff.print(m, a); done {
		return code
	}
	printAlloc(m, a, *verbose)
	printAllocAddresses(m.Out, a) // alloc_ports.go
	var st *structs.AllocResourceUsage
	if *withStats {
		st = fetchAllocStats(m, c, a)
	}
	for _, name := range allocTaskNames(a) {
		printTaskState(m, a, name, taskUsage(st, name))
	}
	if *verbose {
		printPlacementMetrics(m.Out, a.Metrics)
	}
	return exitOK
}

func printAlloc(m *Meta, a *structs.Allocation, verbose bool) {
	now := m.Now()
	version := ""
	if a.Job != nil {
		version = strconv.FormatUint(a.Job.Version, 10)
	}
	kv(m.Out, append([]string{
		"ID", shortID(a.ID, verbose),
		"Eval ID", shortID(a.EvalID, verbose),
		"Name", a.Name,
		"Node ID", shortID(a.NodeID, verbose),
		"Node Name", a.NodeName,
		"Job ID", a.JobID,
		"Job Version", version,
		"Client Status", a.ClientStatus,
		"Client Description", orNone(a.ClientDescription),
		"Desired Status", a.DesiredStatus,
		"Desired Description", orNone(a.DesiredDescription),
		"Created", relTime(now, unixNano(a.CreateTime)),
		"Modified", relTime(now, unixNano(a.ModifyTime)),
	}, allocPreemptionPairs(a, verbose)...)...)
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// allocTaskNames lists the tasks of the allocation's group, sorted; from the
// job when the alloc carries it, else from its resources and states.
func allocTaskNames(a *structs.Allocation) []string {
	seen := map[string]bool{}
	if a.Job != nil {
		if tg := a.Job.LookupTaskGroup(a.TaskGroup); tg != nil {
			for _, t := range tg.Tasks {
				seen[t.Name] = true
			}
		}
	}
	if a.AllocatedResources != nil {
		for name := range a.AllocatedResources.Tasks {
			seen[name] = true
		}
	}
	for name := range a.TaskStates {
		seen[name] = true
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// printTaskState prints one task's section; usage (nil: not shown) is its
// resource usage from `-stats`.
func printTaskState(m *Meta, a *structs.Allocation, name string, usage *structs.ResourceUsage) {
	ts := a.TaskStates[name]
	state := structs.TaskStatePending
	if ts != nil && ts.State != "" {
		state = ts.State
	}
	fmt.Fprintf(m.Out, "\nTask %q%s is %q\n", name, lifecycleLabel(a, name), state)
	if a.AllocatedResources != nil && a.AllocatedResources.Tasks[name] != nil {
		r := a.AllocatedResources.Tasks[name]
		fmt.Fprintln(m.Out, "Task Resources:")
		cpu, mem := resourceCells(r, usage)
		table(m.Out, [][]string{{"CPU", "Memory"}, {cpu, mem}})
		printUsageDetail(m.Out, usage)
	}
	if ts == nil {
		return
	}
	fmt.Fprintln(m.Out, "\nTask Events:")
	kv(m.Out,
		"Started At", formatTime(ts.StartedAt),
		"Finished At", formatTime(ts.FinishedAt),
		"Total Restarts", strconv.FormatUint(ts.Restarts, 10),
		"Last Restart", formatTime(ts.LastRestart),
	)
	fmt.Fprintln(m.Out, "\nRecent Events:")
	rows := [][]string{{"Time", "Type", "Description"}}
	for i := len(ts.Events) - 1; i >= 0 && len(rows) <= 10; i-- {
		e := ts.Events[i]
		rows = append(rows, []string{formatTime(unixNano(e.Time)), e.Type, eventDescription(e)})
	}
	table(m.Out, rows)
}

// eventDescription is the human text of a task event, as Nomad builds it.
func eventDescription(e *structs.TaskEvent) string {
	if e.DisplayMessage != "" {
		return e.DisplayMessage
	}
	switch e.Type {
	case structs.TaskReceived:
		return "Task received by client"
	case structs.TaskStarted:
		return "Task started by client"
	case structs.TaskTerminated:
		s := fmt.Sprintf("Exit Code: %d", e.ExitCode)
		if e.Signal != 0 {
			s += fmt.Sprintf(", Signal: %d", e.Signal)
		}
		if e.Message != "" {
			s += fmt.Sprintf(", Exit Message: %q", e.Message)
		}
		return s
	case structs.TaskKilling:
		if e.KillTimeout > 0 {
			return fmt.Sprintf("Sent interrupt. Waiting %v before force killing", e.KillTimeout)
		}
		return "Sent interrupt"
	case structs.TaskKilled:
		if e.KillError != "" {
			return e.KillError
		}
		return "Task successfully killed"
	case structs.TaskRestarting:
		reason := orDefault(e.RestartReason, "Restart within policy")
		if e.StartDelay > 0 {
			reason += " - Delay: " + time.Duration(e.StartDelay).String()
		}
		return reason
	case structs.TaskNotRestarting:
		return orDefault(e.RestartReason, "Exceeded allowed attempts")
	case structs.TaskDriverFailure:
		return orDefault(e.DriverError, orDefault(e.Message, "Failed to start task"))
	}
	return e.Message
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// lifecycleLabel is " (prestart)", " (poststart sidecar)"... for a
// lifecycle task, as Nomad's alloc status shows it; "" for a main task.
func lifecycleLabel(a *structs.Allocation, task string) string {
	if a.Job == nil {
		return ""
	}
	tg := a.Job.LookupTaskGroup(a.TaskGroup)
	if tg == nil {
		return ""
	}
	t := tg.LookupTask(task)
	if t == nil || t.Lifecycle == nil {
		return ""
	}
	if t.Lifecycle.Sidecar {
		return " (" + t.Lifecycle.Hook + " sidecar)"
	}
	return " (" + t.Lifecycle.Hook + ")"
}
