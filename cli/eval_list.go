package cli

// Nomad's `eval list`: the evaluations, filtered and paged by the server
// (website/cli-evals.md).

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// evalListCommand is `eval list [-job J] [-status S] [-filter EXPR]
// [-per-page N] [-page-token T] [-verbose] [-json] [-t TMPL]`.
func evalListCommand(m *Meta, args []string) int {
	f := m.newFlags("eval list", "[options]")
	verbose := f.Bool("verbose", false, "show full IDs")
	job := f.String("job", "", "only the evaluations of this job")
	status := f.String("status", "", "only the evaluations with this status")
	ff := addFormatFlags(f)
	pf := addPageFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	if code, bad := ff.check(m); bad {
		return code
	}
	q := url.Values{}
	if *job != "" {
		q.Set("job", *job)
	}
	if *status != "" {
		q.Set("status", *status)
	}
	var evals []*structs.Evaluation
	next, err := m.client(f).getPage("/v1/evaluations", pf.query(q), &evals)
	if err != nil {
		return m.errorf("querying evaluations: %v", err)
	}
	// The server filters on job and status; filter again for a server
	// that ignores the parameters.
	kept := evals[:0]
	for _, e := range evals {
		if (*job == "" || e.JobID == *job) && (*status == "" || e.Status == *status) {
			kept = append(kept, e)
		}
	}
	evals = kept
	if code, done := ff.print(m, evals); done {
		return code
	}
	if len(evals) == 0 {
		fmt.Fprintln(m.Out, "No evals found")
		return exitOK
	}
	rows := [][]string{{"ID", "Priority", "Triggered By", "Job ID", "Namespace", "Node ID", "Status", "Placement Failures"}}
	for _, e := range evals {
		rows = append(rows, []string{shortID(e.ID, *verbose), strconv.Itoa(e.Priority), e.TriggeredBy, e.JobID,
			e.Namespace, orDefault(shortID(e.NodeID, *verbose), ""), e.Status, strconv.FormatBool(len(e.FailedTGAllocs) > 0)})
	}
	table(m.Out, rows)
	m.printNextToken(next)
	return exitOK
}
