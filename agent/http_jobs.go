package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// jobRegisterBody is the body of PUT /v1/jobs and PUT /v1/job/:id
// (api.JobRegisterRequest); fields nomadish does not use are ignored.
type jobRegisterBody struct {
	Job            *structs.Job
	EnforceIndex   bool
	JobModifyIndex uint64
	PolicyOverride bool
	// Submission is the job's source, kept per version (http_job_submission.go).
	Submission *structs.JobSubmission
}

// jobPlanBody is the body of PUT /v1/job/:id/plan (api.JobPlanRequest).
type jobPlanBody struct {
	Job            *structs.Job
	Diff           bool
	PolicyOverride bool
	// WhyNotNode and WhyNotGroup are extensions (see JobPlanRequest).
	WhyNotNode  string
	WhyNotGroup string
}

// jobsParseBody is the body of PUT /v1/jobs/parse (api.JobsParseRequest).
type jobsParseBody struct {
	JobHCL       string
	Variables    string
	Canonicalize bool
}

// jobsRegister serves PUT|POST /v1/jobs.
func (s *httpServer) jobsRegister(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.register(w, r, "")
}

// jobRegisterNamed serves PUT|POST /v1/job/:id: the job's ID must be :id.
func (s *httpServer) jobRegisterNamed(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.register(w, r, r.PathValue("id"))
}

func (s *httpServer) register(w http.ResponseWriter, r *http.Request, pathID string) (any, error) {
	var body jobRegisterBody
	raw, err := decodeBodyRaw(r, &body)
	if err != nil {
		return nil, err
	}
	wr := s.parseWrite(r)
	if err := s.prepareJob(body.Job, pathID, wr); err != nil {
		return nil, err
	}
	args := structs.JobRegisterRequest{
		Job: body.Job, EnforceIndex: body.EnforceIndex, JobModifyIndex: body.JobModifyIndex,
		PolicyOverride: body.PolicyOverride, Submission: body.Submission, WriteRequest: wr,
	}
	args.WriteRequest.Namespace = body.Job.Namespace
	var reply structs.JobRegisterResponse
	if err := s.RPC.RPC(structs.JobRegisterRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, firstNonZero(reply.Index, reply.JobModifyIndex))
	reply.Warnings = joinWarnings(reply.Warnings, registerWarnings(raw)) // json_warnings.go
	return reply, nil
}

// prepareJob makes the HTTP checks of a job from a request body: an ID is
// required, it must equal the path's ID when there is one, and a missing
// namespace or region comes from the request (?namespace=, ?region=, the
// agent's region). Canonicalizing, validating and checking the drivers is
// the server's, in one place (jobcheck.Prepare, called by Job.Register and
// Job.Plan), whatever the job came as.
func (s *httpServer) prepareJob(job *structs.Job, pathID string, wr structs.WriteRequest) error {
	if job == nil {
		return badRequest("Job must be specified")
	}
	if job.ID == "" {
		return badRequest("Job ID hasn't been provided")
	}
	if pathID != "" && job.ID != pathID {
		return badRequest("Job ID does not match name")
	}
	if job.Namespace == "" {
		job.Namespace = wr.Namespace
	}
	if job.Region == "" {
		job.Region = wr.Region
	}
	return nil
}

// jobsParse serves PUT|POST /v1/jobs/parse: HCL in, the job's JSON out.
func (s *httpServer) jobsParse(w http.ResponseWriter, r *http.Request) (any, error) {
	var body jobsParseBody
	if err := decodeBody(r, &body); err != nil {
		return nil, err
	}
	if body.JobHCL == "" {
		return nil, badRequest("Job spec is empty")
	}
	if s.Parse == nil {
		return nil, structs.NewCodedError(http.StatusNotImplemented, "job parsing is not available on this agent")
	}
	job, err := s.Parse("input.hcl", []byte(body.JobHCL), body.Variables)
	if err != nil {
		return nil, err // the parser codes bad HCL as 400
	}
	if body.Canonicalize {
		job.Canonicalize()
	}
	return job, nil
}

// jobsList serves GET /v1/jobs (?prefix=).
func (s *httpServer) jobsList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.JobListRequest{QueryOptions: q}
	var reply structs.JobListResponse
	if err := s.RPC.RPC(structs.JobListRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Jobs == nil {
		reply.Jobs = []*structs.JobListStub{}
	}
	if paged(q) { // a page or a filter is this request's own answer
		return reply.Jobs, nil
	}
	// The answer depends on the token (ACLs filter the list): it is part
	// of the key, hashed.
	key := "jobs\x00" + q.Region + "\x00" + q.Namespace + "\x00" + q.Prefix + "\x00" + tokenKey(q.AuthToken)
	return s.sharedJSON(w, r, key, reply.Index, reply.Jobs) // http_shared.go
}

// getJob reads one job; absent is a 404.
func (s *httpServer) getJob(w http.ResponseWriter, r *http.Request) (*structs.Job, *structs.QueryMeta, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, nil, err
	}
	args := structs.JobSpecificRequest{JobID: r.PathValue("id"), QueryOptions: q}
	var reply structs.SingleJobResponse
	if err := s.RPC.RPC(structs.JobGetJobRPC, &args, &reply); err != nil {
		return nil, nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Job == nil {
		return nil, nil, structs.ErrJobNotFound
	}
	return reply.Job, &reply.QueryMeta, nil
}

// jobGet serves GET /v1/job/:id.
func (s *httpServer) jobGet(w http.ResponseWriter, r *http.Request) (any, error) {
	job, _, err := s.getJob(w, r)
	if err != nil {
		return nil, err
	}
	return job, nil
}

// jobDeregister serves DELETE /v1/job/:id (?purge=true).
func (s *httpServer) jobDeregister(w http.ResponseWriter, r *http.Request) (any, error) {
	purge, err := parseBool(r, "purge")
	if err != nil {
		return nil, err
	}
	args := structs.JobDeregisterRequest{JobID: r.PathValue("id"), Purge: purge, WriteRequest: s.parseWrite(r)}
	var reply structs.JobDeregisterResponse
	if err := s.RPC.RPC(structs.JobDeregisterRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, firstNonZero(reply.Index, reply.JobModifyIndex))
	return reply, nil
}

// jobPlan serves PUT|POST /v1/job/:id/plan: a dry run of the scheduler.
func (s *httpServer) jobPlan(w http.ResponseWriter, r *http.Request) (any, error) {
	var body jobPlanBody
	if err := decodeBody(r, &body); err != nil {
		return nil, err
	}
	wr := s.parseWrite(r)
	if err := s.prepareJob(body.Job, r.PathValue("id"), wr); err != nil {
		return nil, err
	}
	wr.Namespace = body.Job.Namespace
	args := structs.JobPlanRequest{Job: body.Job, Diff: body.Diff, WriteRequest: wr}
	args.WhyNotNode, args.WhyNotGroup = body.WhyNotNode, body.WhyNotGroup
	var reply structs.JobPlanResponse
	if err := s.RPC.RPC(structs.JobPlanRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return reply, nil
}

// jobAllocations serves GET /v1/job/:id/allocations (?all=true).
func (s *httpServer) jobAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	all, err := parseBool(r, "all")
	if err != nil {
		return nil, err
	}
	args := structs.JobSpecificRequest{JobID: r.PathValue("id"), All: all, QueryOptions: q}
	var reply structs.JobAllocationsResponse
	if err := s.RPC.RPC(structs.JobAllocationsRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Allocations == nil {
		reply.Allocations = []*structs.AllocListStub{}
	}
	return reply.Allocations, nil
}

// jobEvaluations serves GET /v1/job/:id/evaluations.
func (s *httpServer) jobEvaluations(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.JobSpecificRequest{JobID: r.PathValue("id"), QueryOptions: q}
	var reply structs.JobEvaluationsResponse
	if err := s.RPC.RPC(structs.JobEvaluationsRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Evaluations == nil {
		reply.Evaluations = []*structs.Evaluation{}
	}
	return reply.Evaluations, nil
}

// jobSummary serves GET /v1/job/:id/summary, counted here from the job's
// allocations (no Queued counts: those live in evaluations).
func (s *httpServer) jobSummary(w http.ResponseWriter, r *http.Request) (any, error) {
	job, meta, err := s.getJob(w, r)
	if err != nil {
		return nil, err
	}
	q, err := s.parseQuery(r) // getJob took it already: no error here
	if err != nil {
		return nil, err
	}
	// The allocations as consistently as the job was read: from the leader
	// unless the request says ?stale (a follower's copy may lag). Not
	// blocking again: getJob blocked on the job's index.
	args := structs.JobSpecificRequest{JobID: job.ID, QueryOptions: structs.QueryOptions{
		Region: job.Region, Namespace: job.Namespace, AllowStale: q.AllowStale, AuthToken: requestToken(r),
	}}
	var reply structs.JobAllocationsResponse
	if err := s.RPC.RPC(structs.JobAllocationsRPC, &args, &reply); err != nil {
		return nil, err
	}
	sum := summarize(job, reply.Allocations)
	if err := s.addChildrenSummary(r, job, sum); err != nil { // http_periodic.go
		return nil, err
	}
	sum.ModifyIndex = max(meta.Index, reply.Index)
	setIndex(w, sum.ModifyIndex)
	return sum, nil
}

// summarize counts allocations by client status per task group.
func summarize(job *structs.Job, allocs []*structs.AllocListStub) *structs.JobSummary {
	sum := structs.NewJobSummary(job)
	for _, a := range allocs {
		sum.Count(a.TaskGroup, a.ClientStatus)
	}
	return sum
}

func firstNonZero(vs ...uint64) uint64 {
	for _, v := range vs {
		if v != 0 {
			return v
		}
	}
	return 0
}
