package cli

// Nomad's `job allocs` and `job deployments`: one job's allocations and
// deployments (website/cli-jobs.md).

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// jobAllocsCommand is `job allocs [-all] [-verbose] [-json] [-t TMPL] JOB`.
func jobAllocsCommand(m *Meta, args []string) int {
	f := m.newFlags("job allocs", "[options] JOB")
	all := f.Bool("all", false, "also the allocations of older jobs with the same ID")
	verbose := f.Bool("verbose", false, "show full IDs")
	ff := addFormatFlags(f)
	c, id, code, ok := m.jobArg(f, args, &ff)
	if !ok {
		return code
	}
	q := url.Values{}
	if *all {
		q.Set("all", "true")
	}
	var allocs []*structs.AllocListStub
	if _, err := c.get("/v1/job/"+esc(id)+"/allocations", q, &allocs); err != nil {
		return m.errorf("retrieving allocations of job %q: %v", id, err)
	}
	if code, done := ff.print(m, allocs); done {
		return code
	}
	printAllocTable(m, allocs, *verbose, true)
	return exitOK
}

// jobDeploymentsCommand is `job deployments [-latest] [-all] [-verbose]
// [-json] [-t TMPL] JOB`.
func jobDeploymentsCommand(m *Meta, args []string) int {
	f := m.newFlags("job deployments", "[options] JOB")
	latest := f.Bool("latest", false, "only the latest deployment")
	all := f.Bool("all", false, "also the deployments of older jobs with the same ID")
	verbose := f.Bool("verbose", false, "show full IDs")
	ff := addFormatFlags(f)
	c, id, code, ok := m.jobArg(f, args, &ff)
	if !ok {
		return code
	}
	if *latest {
		d, err := c.latestDeployment(id)
		if err != nil {
			return m.errorf("retrieving the latest deployment of job %q: %v", id, err)
		}
		if code, done := ff.print(m, d); done {
			return code
		}
		if d == nil {
			fmt.Fprintf(m.Out, "No deployment found for job %q\n", id)
			return exitOK
		}
		printDeployment(m.Out, d, *verbose)
		return exitOK
	}
	q := url.Values{}
	if *all {
		q.Set("all", "true")
	}
	var ds []*structs.Deployment
	if _, err := c.get("/v1/job/"+esc(id)+"/deployments", q, &ds); err != nil {
		return m.errorf("retrieving deployments of job %q: %v", id, err)
	}
	if code, done := ff.print(m, ds); done {
		return code
	}
	if len(ds) == 0 {
		fmt.Fprintf(m.Out, "No deployments found for job %q\n", id)
		return exitOK
	}
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].CreateIndex > ds[j].CreateIndex })
	rows := [][]string{{"ID", "Job ID", "Job Version", "Status", "Description"}}
	for _, d := range ds {
		rows = append(rows, []string{shortID(d.ID, *verbose), d.JobID, strconv.FormatUint(d.JobVersion, 10), d.Status, d.StatusDescription})
	}
	table(m.Out, rows)
	return exitOK
}
