package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// jobVersionsReply is the body of GET /v1/job/:id/versions
// (api.JobVersionsResponse).
type jobVersionsReply struct {
	Versions []*structs.Job
	Diffs    []*structs.JobDiff
	structs.QueryMeta
}

// jobVersions serves GET /v1/job/:id/versions (?diffs=true): the kept
// versions newest first; an unknown job is a 404.
func (s *httpServer) jobVersions(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	diffs, err := parseBool(r, "diffs")
	if err != nil {
		return nil, err
	}
	args := structs.JobVersionsRequest{JobID: r.PathValue("id"), Diffs: diffs, QueryOptions: q}
	var reply structs.JobVersionsResponse
	if err := s.RPC.RPC(structs.JobGetJobVersionsRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if len(reply.Versions) == 0 {
		return nil, structs.NewCodedError(structs.ErrCodeNotFound, "job versions not found")
	}
	return jobVersionsReply{Versions: reply.Versions, Diffs: reply.Diffs, QueryMeta: reply.QueryMeta}, nil
}

// jobRevert serves PUT|POST /v1/job/:id/revert (api.JobRevertRequest).
func (s *httpServer) jobRevert(w http.ResponseWriter, r *http.Request) (any, error) {
	var args structs.JobRevertRequest
	if err := decodeBody(r, &args); err != nil {
		return nil, err
	}
	if args.JobID == "" {
		args.JobID = r.PathValue("id")
	}
	if args.JobID != r.PathValue("id") {
		return nil, badRequest("Job ID does not match")
	}
	args.WriteRequest = s.parseWrite(r)
	var reply structs.JobRegisterResponse
	if err := s.RPC.RPC(structs.JobRevertRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, firstNonZero(reply.Index, reply.JobModifyIndex))
	return reply, nil
}

// jobScale serves PUT|POST /v1/job/:id/scale (api.ScalingRequest): set a
// group's count through a normal registration.
func (s *httpServer) jobScale(w http.ResponseWriter, r *http.Request) (any, error) {
	var args structs.JobScaleRequest
	if err := decodeBody(r, &args); err != nil {
		return nil, err
	}
	if job := args.Target["Job"]; job != "" && job != r.PathValue("id") {
		return nil, badRequest("job ID in payload did not match URL")
	}
	args.JobID = r.PathValue("id")
	args.WriteRequest = s.parseWrite(r)
	var reply structs.JobRegisterResponse
	if err := s.RPC.RPC(structs.JobScaleRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, firstNonZero(reply.Index, reply.JobModifyIndex))
	return reply, nil
}

// jobScaleStatusReply is the body of GET /v1/job/:id/scale
// (api.JobScaleStatusResponse).
type jobScaleStatusReply struct {
	JobID          string
	Namespace      string
	JobCreateIndex uint64
	JobModifyIndex uint64
	JobStopped     bool
	TaskGroups     map[string]structs.TaskGroupScaleStatus
}

// jobScaleStatus serves GET /v1/job/:id/scale.
func (s *httpServer) jobScaleStatus(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.JobSpecificRequest{JobID: r.PathValue("id"), QueryOptions: q}
	var reply structs.JobScaleStatusResponse
	if err := s.RPC.RPC(structs.JobScaleStatusRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	return jobScaleStatusReply{JobID: reply.JobID, Namespace: reply.Namespace, JobCreateIndex: reply.JobCreateIndex,
		JobModifyIndex: reply.JobModifyIndex, JobStopped: reply.JobStopped, TaskGroups: reply.TaskGroups}, nil
}

// jobStable serves PUT|POST /v1/job/:id/stable (api.JobStabilityRequest).
func (s *httpServer) jobStable(w http.ResponseWriter, r *http.Request) (any, error) {
	var args structs.JobStabilityRequest
	if err := decodeBody(r, &args); err != nil {
		return nil, err
	}
	args.JobID = r.PathValue("id")
	args.WriteRequest = s.parseWrite(r)
	var reply structs.JobStabilityResponse
	if err := s.RPC.RPC(structs.JobStableRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return reply, nil
}
