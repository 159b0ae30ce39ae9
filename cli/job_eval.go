package cli

// Nomad's `job eval`: force a new evaluation of a job (website/cli-jobs.md).

import (
	"fmt"
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// evaluateJob is PUT /v1/job/:id/evaluate.
func (c *apiClient) evaluateJob(id string, forceReschedule bool) (*structs.JobRegisterResponse, error) {
	body := structs.JobEvaluateRequest{JobID: id, EvalOptions: structs.EvalOptions{ForceReschedule: forceReschedule}}
	var out structs.JobRegisterResponse
	_, err := c.do(http.MethodPut, "/v1/job/"+esc(id)+"/evaluate", nil, body, &out)
	return &out, err
}

// jobEvalCommand is `job eval [-force-reschedule] [-detach] [-verbose] JOB`:
// it creates the evaluation and monitors it as `job run` does.
func jobEvalCommand(m *Meta, args []string) int {
	f := m.newFlags("job eval", "[options] JOB")
	force := f.Bool("force-reschedule", false, "replace failed allocations now, even past their reschedule policy")
	detach := f.Bool("detach", false, "return at once with the evaluation ID")
	verbose := f.Bool("verbose", false, "show full IDs")
	c, id, code, ok := m.jobArg(f, args, nil)
	if !ok {
		return code
	}
	resp, err := c.evaluateJob(id, *force)
	if err != nil {
		return m.errorf("evaluating job: %v", err)
	}
	if *detach {
		fmt.Fprintf(m.Out, "Created eval ID: %q\n", shortID(resp.EvalID, *verbose))
		return exitOK
	}
	mon := &monitor{m: m, c: c, verbose: *verbose}
	return mon.run(resp.EvalID)
}
