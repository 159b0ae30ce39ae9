package cli

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// deployments is GET /v1/deployments (ID prefix filter).
func (c *apiClient) deployments(prefix string) ([]*structs.Deployment, error) {
	var out []*structs.Deployment
	_, err := c.get("/v1/deployments", prefixQuery(prefix), &out)
	return filterPrefix(out, prefix, func(d *structs.Deployment) string { return d.ID }), err
}

// deployment is GET /v1/deployment/:id, blocking past index when set.
func (c *apiClient) deployment(id string, index uint64, wait time.Duration) (*structs.Deployment, uint64, error) {
	var out structs.Deployment
	idx, err := c.get("/v1/deployment/"+esc(id), blocking(index, wait), &out)
	return &out, idx, err
}

// latestDeployment is GET /v1/job/:id/deployment (nil when none).
func (c *apiClient) latestDeployment(jobID string) (*structs.Deployment, error) {
	var out *structs.Deployment
	_, err := c.get("/v1/job/"+esc(jobID)+"/deployment", nil, &out)
	return out, err
}

// promoteDeployment is POST /v1/deployment/promote/:id.
func (c *apiClient) promoteDeployment(id string, groups []string) (*structs.DeploymentUpdateResponse, error) {
	var out structs.DeploymentUpdateResponse
	body := map[string]any{"DeploymentID": id, "All": len(groups) == 0, "Groups": groups}
	_, err := c.do(http.MethodPost, "/v1/deployment/promote/"+esc(id), nil, body, &out)
	return &out, err
}

// failDeployment is POST /v1/deployment/fail/:id.
func (c *apiClient) failDeployment(id string) (*structs.DeploymentUpdateResponse, error) {
	var out structs.DeploymentUpdateResponse
	_, err := c.do(http.MethodPost, "/v1/deployment/fail/"+esc(id), nil, map[string]any{"DeploymentID": id}, &out)
	return &out, err
}

func deploymentMatcher(c *apiClient) matcher[*structs.Deployment] {
	return matcher[*structs.Deployment]{
		kind: "deployment", list: c.deployments,
		id:     func(d *structs.Deployment) string { return d.ID },
		header: []string{"ID", "Job ID", "Job Version", "Status"},
		row: func(d *structs.Deployment) []string {
			return []string{d.ID, d.JobID, strconv.FormatUint(d.JobVersion, 10), d.Status}
		},
	}
}

// deploymentListCommand is `deployment list [-verbose]`.
func deploymentListCommand(m *Meta, args []string) int {
	f := m.newFlags("deployment list", "[options]")
	verbose := f.Bool("verbose", false, "show full IDs")
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
	var ds []*structs.Deployment
	next, err := m.client(f).getPage("/v1/deployments", pf.query(nil), &ds)
	if err != nil {
		return m.errorf("retrieving deployments: %v", err)
	}
	if code, done := ff.print(m, ds); done {
		return code
	}
	if len(ds) == 0 {
		fmt.Fprintln(m.Out, "No deployments found")
		return exitOK
	}
	rows := [][]string{{"ID", "Job ID", "Job Version", "Status", "Description"}}
	for _, d := range ds {
		rows = append(rows, []string{shortID(d.ID, *verbose), d.JobID, strconv.FormatUint(d.JobVersion, 10), d.Status, d.StatusDescription})
	}
	table(m.Out, rows)
	m.printNextToken(next)
	return exitOK
}

// deploymentStatusCommand is `deployment status [-verbose] ID`.
func deploymentStatusCommand(m *Meta, args []string) int {
	f := m.newFlags("deployment status", "[options] DEPLOYMENT")
	verbose := f.Bool("verbose", false, "show full IDs")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the deployment ID or prefix")
	}
	c := m.client(f)
	id, ok := resolveID(m, deploymentMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	d, _, err := c.deployment(id, 0, 0)
	if err != nil {
		return m.errorf("retrieving deployment: %v", err)
	}
	if code, done := ff.print(m, d); done {
		return code
	}
	printDeployment(m.Out, d, *verbose)
	return exitOK
}

// printDeployment prints a deployment like Nomad's `deployment status`.
func printDeployment(w io.Writer, d *structs.Deployment, verbose bool) {
	kv(w, "ID", shortID(d.ID, verbose), "Job ID", d.JobID, "Job Version", strconv.FormatUint(d.JobVersion, 10),
		"Status", d.Status, "Description", d.StatusDescription)
	fmt.Fprintln(w, "\nDeployed")
	table(w, deploymentRows(d))
}

// deploymentRows is the per-group table (canary columns when a group has
// canaries).
func deploymentRows(d *structs.Deployment) [][]string {
	canaries, autoRevert := false, false
	names := make([]string, 0, len(d.TaskGroups))
	for name, s := range d.TaskGroups {
		names = append(names, name)
		canaries = canaries || s.DesiredCanaries > 0
		autoRevert = autoRevert || s.AutoRevert
	}
	sort.Strings(names)
	head := []string{"Task Group"}
	if autoRevert {
		head = append(head, "Auto Revert")
	}
	if canaries {
		head = append(head, "Promoted")
	}
	head = append(head, "Desired")
	if canaries {
		head = append(head, "Canaries")
	}
	rows := [][]string{append(head, "Placed", "Healthy", "Unhealthy", "Progress Deadline")}
	for _, name := range names {
		s := d.TaskGroups[name]
		row := []string{name}
		if autoRevert {
			row = append(row, strconv.FormatBool(s.AutoRevert))
		}
		if canaries {
			row = append(row, strconv.FormatBool(s.Promoted))
		}
		row = append(row, strconv.Itoa(s.DesiredTotal))
		if canaries {
			row = append(row, strconv.Itoa(s.DesiredCanaries))
		}
		deadline := "<none>"
		if !s.RequireProgressBy.IsZero() {
			deadline = s.RequireProgressBy.Format(time.RFC3339)
		}
		rows = append(rows, append(row, strconv.Itoa(s.PlacedAllocs), strconv.Itoa(s.HealthyAllocs),
			strconv.Itoa(s.UnhealthyAllocs), deadline))
	}
	return rows
}

// deploymentPromoteCommand is `deployment promote [-group G]... ID`.
func deploymentPromoteCommand(m *Meta, args []string) int {
	return promote(m, "deployment promote", "[options] DEPLOYMENT", args, false)
}

// pauseDeployment is POST /v1/deployment/pause/:id.
func (c *apiClient) pauseDeployment(id string, pause bool) (*structs.DeploymentUpdateResponse, error) {
	var out structs.DeploymentUpdateResponse
	_, err := c.do(http.MethodPost, "/v1/deployment/pause/"+esc(id), nil, map[string]any{"DeploymentID": id, "Pause": pause}, &out)
	return &out, err
}

// deploymentPauseCommand is `deployment pause ID`.
func deploymentPauseCommand(m *Meta, args []string) int {
	return pauseResume(m, "deployment pause", args, true)
}

// deploymentResumeCommand is `deployment resume ID`.
func deploymentResumeCommand(m *Meta, args []string) int {
	return pauseResume(m, "deployment resume", args, false)
}

func pauseResume(m *Meta, name string, args []string, pause bool) int {
	f := m.newFlags(name, "[options] DEPLOYMENT")
	verbose := f.Bool("verbose", false, "show full IDs")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the deployment ID or prefix")
	}
	c := m.client(f)
	id, ok := resolveID(m, deploymentMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	if _, err := c.pauseDeployment(id, pause); err != nil {
		return m.errorf("%s: %v", name, err)
	}
	word := "resumed"
	if pause {
		word = "paused"
	}
	fmt.Fprintf(m.Out, "Deployment %q %s\n", shortID(id, *verbose), word)
	return exitOK
}

// deploymentFailCommand is `deployment fail ID`.
func deploymentFailCommand(m *Meta, args []string) int {
	f := m.newFlags("deployment fail", "[options] DEPLOYMENT")
	verbose := f.Bool("verbose", false, "show full IDs")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the deployment ID or prefix")
	}
	c := m.client(f)
	id, ok := resolveID(m, deploymentMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	resp, err := c.failDeployment(id)
	if err != nil {
		return m.errorf("failing deployment: %v", err)
	}
	msg := fmt.Sprintf("Deployment %q failed", shortID(id, *verbose))
	if resp.RevertedJobVersion != nil {
		msg += fmt.Sprintf(". Reverted job to version %d", *resp.RevertedJobVersion)
	}
	fmt.Fprintln(m.Out, msg)
	if resp.EvalID != "" {
		mon := &monitor{m: m, c: c, verbose: *verbose}
		return mon.run(resp.EvalID)
	}
	return exitOK
}
