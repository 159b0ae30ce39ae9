package cli

// statusCommand is `status [JOB]`: like `nomad status`, the jobs table, or
// one job's status when given its ID.
func statusCommand(m *Meta, args []string) int {
	return jobStatus(m, "status", args)
}
