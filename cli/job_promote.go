package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/nomadish/nomadish/structs"
)

// jobPromoteCommand is `job promote [-group G]... JOB`: promote the canaries
// of the job's latest deployment.
func jobPromoteCommand(m *Meta, args []string) int {
	return promote(m, "job promote", "[options] JOB", args, true)
}

// promote serves `deployment promote` and `job promote` (byJob): it
// promotes all groups, or those named with -group, then monitors the eval.
func promote(m *Meta, name, usage string, args []string, byJob bool) int {
	f := m.newFlags(name, usage)
	verbose := f.Bool("verbose", false, "show full IDs")
	detach := f.Bool("detach", false, "return at once with the evaluation ID")
	var groups stringList
	f.Var(&groups, "group", "promote only this task group's canaries; repeatable")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument")
	}
	c := m.client(f)
	var id string
	if byJob {
		jobID, ok := resolveID(m, jobMatcher(c), pos[0])
		if !ok {
			return exitError
		}
		d, err := c.latestDeployment(jobID)
		if err != nil {
			return m.errorf("retrieving deployment: %v", err)
		}
		if d == nil || !d.Active() {
			return m.errorf("promoting job %q: no active deployment", jobID)
		}
		id = d.ID
	} else if id, ok = resolveID(m, deploymentMatcher(c), pos[0]); !ok {
		return exitError
	}
	resp, err := c.promoteDeployment(id, groups)
	if err != nil {
		return m.errorf("promoting deployment: %v", err)
	}
	if *detach || resp.EvalID == "" {
		fmt.Fprintf(m.Out, "Deployment %q promoted\n", shortID(id, *verbose))
		if resp.EvalID != "" {
			fmt.Fprintf(m.Out, "Evaluation ID: %s\n", resp.EvalID)
		}
		return exitOK
	}
	mon := &monitor{m: m, c: c, verbose: *verbose}
	if code := mon.run(resp.EvalID); code != exitOK {
		return code
	}
	return mon.deployment(id)
}

// followDeployment monitors the deployment that registering the job at
// jobModifyIndex started, if any: 0 when it succeeds (or there is none,
// or it waits for a promotion), 1 when it fails or is cancelled.
func (mon *monitor) followDeployment(jobID string, jobModifyIndex uint64) int {
	d, err := mon.c.latestDeployment(jobID)
	if isNotFound(err) || errors.Is(err, io.EOF) {
		return exitOK // an agent without deployments
	}
	if err != nil {
		return mon.m.errorf("retrieving deployment: %v", err)
	}
	if d == nil || d.JobModifyIndex < jobModifyIndex {
		return exitOK
	}
	return mon.deployment(d.ID)
}

// deployment follows a deployment with blocking queries until it ends,
// printing its table whenever its counts change.
func (mon *monitor) deployment(id string) int {
	w := mon.m.Out
	short := shortID(id, mon.verbose)
	fmt.Fprintf(w, "==> Monitoring deployment %q\n", short)
	var index uint64
	last := ""
	for {
		d, idx, err := mon.c.deployment(id, index, monitorWait)
		if err != nil {
			return mon.m.errorf("retrieving deployment: %v", err)
		}
		if now := fmt.Sprint(deploymentRows(d)); now != last {
			last = now
			fmt.Fprintf(w, "    Deployment %q %s: %s\n", short, progressWord(d), d.StatusDescription)
			fmt.Fprintln(w)
			table(indent{w}, deploymentRows(d))
			fmt.Fprintln(w)
		}
		switch {
		case d.Status == structs.DeploymentStatusSuccessful:
			fmt.Fprintf(w, "==> Deployment %q successful\n", short)
			return exitOK
		case !d.Active():
			fmt.Fprintf(w, "==> Deployment %q %s: %s\n", short, d.Status, d.StatusDescription)
			return exitError
		case waitsForPromotion(d):
			fmt.Fprintf(w, "==> Deployment %q waits for promotion: nomadish deployment promote %s\n", short, short)
			return exitOK
		}
		index = max(idx, index+1)
	}
}

func progressWord(d *structs.Deployment) string {
	if d.Active() {
		return "in progress"
	}
	return d.Status
}

// waitsForPromotion reports whether every canary is healthy and a group
// needs a manual promotion.
func waitsForPromotion(d *structs.Deployment) bool {
	waiting := false
	for _, s := range d.TaskGroups {
		if s.DesiredCanaries > 0 && !s.Promoted {
			if s.AutoPromote || s.HealthyAllocs < s.DesiredCanaries {
				return false
			}
			waiting = true
		}
	}
	return waiting
}

// indent prefixes every write (one line of table) with four spaces.
type indent struct{ w io.Writer }

func (i indent) Write(p []byte) (int, error) {
	if _, err := io.WriteString(i.w, "    "); err != nil {
		return 0, err
	}
	return i.w.Write(p)
}
