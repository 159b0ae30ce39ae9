package cli

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// scaleJob is PUT /v1/job/:id/scale (api.ScalingRequest).
func (c *apiClient) scaleJob(id, group string, count int64) (*structs.JobRegisterResponse, error) {
	var out structs.JobRegisterResponse
	body := map[string]any{"Count": count, "Target": map[string]string{"Job": id, "Group": group}}
	_, err := c.do(http.MethodPut, "/v1/job/"+esc(id)+"/scale", nil, body, &out)
	return &out, err
}

// jobScaleCommand is `job scale [-detach] [-verbose] JOB [GROUP] COUNT`: set
// a group's count (GROUP may be left out when the job has one group) and
// monitor the evaluation, like `job run`.
func jobScaleCommand(m *Meta, args []string) int {
	f := m.newFlags("job scale", "[options] JOB [GROUP] COUNT")
	detach := f.Bool("detach", false, "return at once with the evaluation ID")
	verbose := f.Bool("verbose", false, "show full IDs")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 2 && len(pos) != 3 {
		return m.wrongArgs(f, "the job ID, optionally a group name, and the count")
	}
	count, err := strconv.ParseInt(pos[len(pos)-1], 10, 64)
	if err != nil {
		return m.errorf("parsing count %q: not a number", pos[len(pos)-1])
	}
	c := m.client(f)
	id, ok := resolveID(m, jobMatcher(c), pos[0])
	if !ok {
		return exitError
	}
	group := ""
	if len(pos) == 3 {
		group = pos[1]
	} else {
		job, err := c.job(id)
		if err != nil {
			return m.errorf("querying job %q: %v", id, err)
		}
		if len(job.TaskGroups) != 1 {
			return m.errorf("group name required: job %q has %d groups", id, len(job.TaskGroups))
		}
		group = job.TaskGroups[0].Name
	}
	resp, err := c.scaleJob(id, group, count)
	if err != nil {
		return m.errorf("scaling job: %v", err)
	}
	if resp.EvalID == "" {
		fmt.Fprintf(m.Out, "Job %q: group %q already at count %d\n", id, group, count)
		return exitOK
	}
	return followEval(m, c, resp.EvalID, *detach, *verbose)
}
