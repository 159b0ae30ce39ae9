package cli

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// revertJob is PUT /v1/job/:id/revert.
func (c *apiClient) revertJob(id string, version uint64, enforcePrior *uint64) (*structs.JobRegisterResponse, error) {
	var out structs.JobRegisterResponse
	body := structs.JobRevertRequest{JobID: id, JobVersion: version, EnforcePriorVersion: enforcePrior}
	_, err := c.do(http.MethodPut, "/v1/job/"+esc(id)+"/revert", nil, body, &out)
	return &out, err
}

// jobRevertCommand is `job revert [-detach] [-verbose] JOB VERSION`:
// register an older version's spec again as a new version and monitor the
// evaluation, like `job run`.
func jobRevertCommand(m *Meta, args []string) int {
	f := m.newFlags("job revert", "[options] JOB VERSION")
	detach := f.Bool("detach", false, "return at once with the evaluation ID")
	verbose := f.Bool("verbose", false, "show full IDs")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 2 {
		return m.wrongArgs(f, "two arguments: the job ID and the version to revert to")
	}
	version, err := strconv.ParseUint(pos[1], 10, 64)
	if err != nil {
		return m.errorf("parsing version %q: not a version number", pos[1])
	}
	c := m.client(f)
	id, ok := resolveID(m, jobMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	resp, err := c.revertJob(id, version, nil)
	if err != nil {
		return m.errorf("reverting job: %v", err)
	}
	return followEval(m, c, resp.EvalID, *detach, *verbose)
}

// followEval ends a command that created an evaluation: with detach it
// prints the eval ID, else it monitors the eval like `job run`.
func followEval(m *Meta, c *apiClient, evalID string, detach, verbose bool) int {
	if evalID == "" {
		return exitOK
	}
	if detach {
		fmt.Fprintf(m.Out, "Evaluation ID: %s\n", evalID)
		return exitOK
	}
	mon := &monitor{m: m, c: c, verbose: verbose}
	return mon.run(evalID)
}
