package agent

import (
	"net/http"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// jobSubmission serves GET /v1/job/:id/submission?version=N (Nomad >= 1.6):
// the source that version of the job was submitted as (api.JobSubmission).
// The version is required (400 without one); a version with no kept source
// (submitted as JSON without one, over the size limit, pruned, or an
// unknown job) is a 404, as in Nomad. Blocking.
func (s *httpServer) jobSubmission(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	version, err := strconv.ParseUint(r.URL.Query().Get("version"), 10, 64)
	if err != nil {
		return nil, badRequest("Unable to parse job submission version parameter")
	}
	args := structs.JobSubmissionRequest{JobID: r.PathValue("id"), Version: version, QueryOptions: q}
	var reply structs.JobSubmissionResponse
	if err := s.RPC.RPC(structs.JobGetSubmissionRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Submission == nil {
		return nil, structs.NewCodedError(structs.ErrCodeNotFound, "job source not found")
	}
	return reply.Submission, nil
}
