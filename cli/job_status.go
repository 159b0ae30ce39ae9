package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// jobStatusCommand is `job status [-verbose] [ID]`: the jobs table, or one
// job's info, per-group summary and allocations.
func jobStatusCommand(m *Meta, args []string) int {
	return jobStatus(m, "job status", args)
}

func jobStatus(m *Meta, name string, args []string) int {
	f := m.newFlags(name, "[options] [JOB]")
	verbose := f.Bool("verbose", false, "show full IDs")
	ff := addFormatFlags(f)
	pf := addPageFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if code, bad := ff.check(m); bad {
		return code
	}
	c := m.client(f)
	switch len(pos) {
	case 0:
		return listJobs(m, c, ff, pf)
	case 1:
	default:
		return m.wrongArgs(f, "at most one argument: the job ID")
	}
	id, ok := resolveID(m, jobMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	job, err := c.job(id)
	if err != nil {
		return m.errorf("querying job %q: %v", id, err)
	}
	if code, done := ff.print(m, job); done {
		return code
	}
	if job.IsParent() { // job_status_parent.go
		printJob(m, job)
		return printParentStatus(m, c, job)
	}
	allocs, _, err := c.jobAllocations(id, 0, 0)
	if err != nil {
		return m.errorf("querying allocations of job %q: %v", id, err)
	}
	printJob(m, job)
	fmt.Fprintln(m.Out, "\nSummary")
	printSummary(m, job, allocs)
	if evals, err := c.jobEvaluations(id); err != nil {
		fmt.Fprintf(m.Err, "Error querying evaluations of job %q: %v\n", id, err)
	} else {
		printPlacementFailure(m.Out, latestFailedEval(evals), *verbose)
	}
	fmt.Fprintln(m.Out, "\nAllocations")
	printAllocTable(m, allocs, *verbose, true)
	return exitOK
}

func listJobs(m *Meta, c *apiClient, ff formatFlags, pf pageFlags) int {
	var jobs []*structs.JobListStub
	next, err := c.getPage("/v1/jobs", pf.query(nil), &jobs)
	if err != nil {
		return m.errorf("querying jobs: %v", err)
	}
	if code, done := ff.print(m, jobs); done {
		return code
	}
	if len(jobs) == 0 {
		fmt.Fprintln(m.Out, "No running jobs")
		return exitOK
	}
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].Namespace+"\x00"+jobs[i].ID < jobs[j].Namespace+"\x00"+jobs[j].ID })
	// Across namespaces (-namespace '*'), a Namespace column, as Nomad.
	all := c.namespace == structs.AllNamespaces
	rows := [][]string{{"ID", "Type", "Priority", "Status", "Submit Date"}}
	if all {
		rows[0] = append([]string{"ID", "Namespace"}, rows[0][1:]...)
	}
	for _, j := range jobs {
		row := []string{j.ID, j.Type, strconv.Itoa(j.Priority), jobStatusWord(j.Status, j.Stop), formatTime(unixNano(j.SubmitTime))}
		if all {
			row = append([]string{j.ID, j.Namespace}, row[1:]...)
		}
		rows = append(rows, row)
	}
	table(m.Out, rows)
	m.printNextToken(next)
	return exitOK
}

// jobStatusWord is the job's status, "dead (stopped)" for a stopped job.
func jobStatusWord(status string, stop bool) string {
	if stop && status != "" && status != structs.JobStatusDead {
		return status + " (stopped)"
	}
	if stop {
		return "dead (stopped)"
	}
	return status
}

func printJob(m *Meta, j *structs.Job) {
	kv(m.Out,
		"ID", j.ID,
		"Name", j.Name,
		"Submit Date", formatTime(unixNano(j.SubmitTime)),
		"Type", j.Type,
		"Priority", strconv.Itoa(j.Priority),
		"Datacenters", strings.Join(j.Datacenters, ","),
		"Namespace", j.Namespace,
		"Node Pool", j.NodePool,
		"Status", jobStatusWord(j.Status, j.Stop),
		"Version", strconv.FormatUint(j.Version, 10),
	)
}

// printSummary counts the job's allocations by client status, per group.
func printSummary(m *Meta, job *structs.Job, allocs []*structs.AllocListStub) {
	sum := map[string]*structs.TaskGroupSummary{}
	for _, tg := range job.TaskGroups {
		sum[tg.Name] = &structs.TaskGroupSummary{}
	}
	for _, a := range allocs {
		s := sum[a.TaskGroup]
		if s == nil {
			s = &structs.TaskGroupSummary{}
			sum[a.TaskGroup] = s
		}
		switch a.ClientStatus {
		case structs.AllocClientStatusPending:
			s.Starting++
		case structs.AllocClientStatusRunning:
			s.Running++
		case structs.AllocClientStatusComplete:
			s.Complete++
		case structs.AllocClientStatusFailed:
			s.Failed++
		case structs.AllocClientStatusLost:
			s.Lost++
		default:
			s.Unknown++
		}
	}
	names := make([]string, 0, len(sum))
	for n := range sum {
		names = append(names, n)
	}
	sort.Strings(names)
	rows := [][]string{{"Task Group", "Starting", "Running", "Failed", "Complete", "Lost", "Unknown"}}
	for _, n := range names {
		s := sum[n]
		rows = append(rows, []string{n, itoa(s.Starting), itoa(s.Running), itoa(s.Failed), itoa(s.Complete), itoa(s.Lost), itoa(s.Unknown)})
	}
	table(m.Out, rows)
}

func itoa(i int) string { return strconv.Itoa(i) }

// printAllocTable prints allocations newest first; withGroup adds the task
// group column.
func printAllocTable(m *Meta, allocs []*structs.AllocListStub, verbose, withGroup bool) {
	if len(allocs) == 0 {
		fmt.Fprintln(m.Out, "No allocations placed")
		return
	}
	sort.SliceStable(allocs, func(i, j int) bool { return allocs[i].CreateIndex > allocs[j].CreateIndex })
	now := m.Now()
	head := []string{"ID", "Node ID"}
	if withGroup {
		head = append(head, "Task Group")
	} else {
		head = append(head, "Job ID")
	}
	rows := [][]string{append(head, "Desired", "Status", "Created", "Modified")}
	for _, a := range allocs {
		r := []string{shortID(a.ID, verbose), shortID(a.NodeID, verbose)}
		if withGroup {
			r = append(r, a.TaskGroup)
		} else {
			r = append(r, a.JobID)
		}
		rows = append(rows, append(r, a.DesiredStatus, a.ClientStatus,
			relTime(now, unixNano(a.CreateTime)), relTime(now, unixNano(a.ModifyTime))))
	}
	table(m.Out, rows)
}
