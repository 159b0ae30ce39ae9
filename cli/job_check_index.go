package cli

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// registerJobCheckIndex is PUT /v1/jobs, enforcing the job modify index when
// checkIndex is set (`job run -check-index N`): 0 means the job must be new.
// sub (nil: none) is the job's source, kept by the server per version.
func (c *apiClient) registerJobCheckIndex(job *structs.Job, sub *structs.JobSubmission, checkIndex string) (*structs.JobRegisterResponse, error) {
	body := map[string]any{"Job": job}
	if sub != nil {
		body["Submission"] = sub
	}
	if checkIndex != "" {
		idx, err := strconv.ParseUint(checkIndex, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("-check-index %q is not a job modify index (an unsigned integer)", checkIndex)
		}
		body["EnforceIndex"], body["JobModifyIndex"] = true, idx
	}
	var out structs.JobRegisterResponse
	_, err := c.do(http.MethodPut, "/v1/jobs", nil, body, &out)
	return &out, err
}

// registerFailed prints why a registration failed: a check-index conflict
// as Nomad prints it (the server's message, then "Job not updated").
func (m *Meta) registerFailed(err error) int {
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusConflict && strings.HasPrefix(ae.Body, "Enforcing job modify index") {
		fmt.Fprintln(m.Err, strings.TrimSpace(ae.Body))
		fmt.Fprintln(m.Err, "Job not updated")
		return exitError
	}
	return m.errorf("submitting job: %v", err)
}

// printCheckIndexHint ends `job plan` with the command that submits the
// job only if nobody changed it since the plan.
func printCheckIndexHint(w io.Writer, jobModifyIndex uint64, path string) {
	fmt.Fprintf(w, `To submit the job with version verification run:

nomadish job run -check-index %d %s

When running the job with the check-index flag, the job will only be run if the
job modify index given matches the server-side version. If the index has
changed, another user has modified the job and the plan's results are
potentially invalid.
`, jobModifyIndex, path)
}
