package cli

import "fmt"

// jobStopCommand is `job stop [-purge] [-detach] [-verbose] JOB`: deregister
// the job and monitor the evaluation that stops its allocations.
func jobStopCommand(m *Meta, args []string) int {
	f := m.newFlags("job stop", "[options] JOB")
	purge := f.Bool("purge", false, "remove the job from the state entirely")
	detach := f.Bool("detach", false, "return at once with the evaluation ID")
	verbose := f.Bool("verbose", false, "show full IDs")
	c, id, code, ok := m.jobArg(f, args, nil)
	if !ok {
		return code
	}
	resp, err := c.deregisterJob(id, *purge)
	if err != nil {
		return m.errorf("deregistering job: %v", err)
	}
	if resp.EvalID == "" {
		fmt.Fprintf(m.Out, "Job %q stopped\n", id)
		return exitOK
	}
	if *detach {
		fmt.Fprintln(m.Out, resp.EvalID)
		return exitOK
	}
	mon := &monitor{m: m, c: c, verbose: *verbose}
	return mon.run(resp.EvalID)
}
