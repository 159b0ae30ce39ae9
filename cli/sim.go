package cli

// The `sim` command group (website/sim.md): the scheduling simulator.
// Each sub-command lives in its own file; add one here with one line.

// simCommands lists the `sim` sub-commands.
func simCommands() []command {
	return []command{
		{name: "sim run", synopsis: "Simulate a cluster and a workload trace on the real scheduler (fast mode)", run: simRunCommand},    // sim_run.go
		{name: "sim report", synopsis: "Render sim -json outputs as an HTML report (two or more: a comparison)", run: simReportCommand}, // sim_report.go
		{name: "sim cluster", synopsis: "Measure real servers under simulated clients (full mode)", run: simClusterCommand},             // sim_cluster.go
	}
}
