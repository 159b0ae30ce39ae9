package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// printParentStatus is `job status` for a periodic or parameterized parent
// (as Nomad's): the next periodic launch, the children summary and the
// children. Such a job has no allocations of its own.
func printParentStatus(m *Meta, c *apiClient, job *structs.Job) int {
	if job.IsPeriodic() {
		kv(m.Out, "Periodic", "true", "Cron", strings.Join(job.Periodic.AllSpecs(), ", "),
			"Next Periodic Launch", nextLaunch(m, job))
	}
	if job.IsParameterized() {
		p := job.ParameterizedJob
		kv(m.Out, "Parameterized", "true", "Payload", p.Payload,
			"Required Meta", strings.Join(p.MetaRequired, ","), "Optional Meta", strings.Join(p.MetaOptional, ","))
	}
	children, err := c.jobs(job.ID + "/")
	if err != nil {
		return m.errorf("querying children of job %q: %v", job.ID, err)
	}
	var sum structs.JobChildrenSummary
	var mine []*structs.JobListStub
	for _, ch := range children {
		if ch.ParentID == job.ID {
			mine = append(mine, ch)
			sum.Count(ch.Status)
		}
	}
	fmt.Fprintln(m.Out, "\nChildren Job Summary")
	table(m.Out, [][]string{{"Pending", "Running", "Dead"},
		{fmt.Sprint(sum.Pending), fmt.Sprint(sum.Running), fmt.Sprint(sum.Dead)}})
	title := "Dispatched Jobs"
	if job.IsPeriodic() {
		title = "Previously Launched Jobs"
	}
	fmt.Fprintln(m.Out, "\n"+title)
	if len(mine) == 0 {
		fmt.Fprintln(m.Out, "No instances of this job found")
		return exitOK
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].SubmitTime > mine[j].SubmitTime })
	rows := [][]string{{"ID", "Status"}}
	for _, ch := range mine {
		rows = append(rows, []string{ch.ID, ch.Status})
	}
	table(m.Out, rows)
	return exitOK
}

// nextLaunch is the next launch of an enabled periodic job in its time
// zone, with how far off it is.
func nextLaunch(m *Meta, job *structs.Job) string {
	if !job.IsPeriodicActive() {
		return "<none> (disabled or stopped)"
	}
	now := m.Now()
	next := job.Periodic.Next(now)
	if next.IsZero() {
		return "<none>"
	}
	return fmt.Sprintf("%s (%s from now)", next.Format("2006-01-02T15:04:05Z07:00"), next.Sub(now).Round(1e9))
}

// printNextLaunch tells, after `job run` of a periodic job, when its first
// child is launched (as Nomad's "Approximate next launch time").
func printNextLaunch(m *Meta, job *structs.Job) {
	if job.IsPeriodic() {
		fmt.Fprintf(m.Out, "Approximate next launch time: %s\n", nextLaunch(m, job))
	}
}
