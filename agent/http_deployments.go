package agent

import (
	"encoding/json"
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// deploymentsList serves GET /v1/deployments (?prefix=), newest first.
func (s *httpServer) deploymentsList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.DeploymentListRequest{QueryOptions: q}
	var reply structs.DeploymentListResponse
	if err := s.RPC.RPC(structs.DeploymentListRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Deployments == nil {
		reply.Deployments = []*structs.Deployment{}
	}
	return reply.Deployments, nil
}

// deploymentGet serves GET /v1/deployment/:id.
func (s *httpServer) deploymentGet(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.DeploymentSpecificRequest{DeploymentID: r.PathValue("id"), QueryOptions: q}
	var reply structs.SingleDeploymentResponse
	if err := s.RPC.RPC(structs.DeploymentGetRPC, &args, &reply); err != nil {
		return nil, err
	}
	if reply.Deployment == nil {
		return nil, structs.NewCodedError(structs.ErrCodeNotFound, "deployment not found")
	}
	setMeta(w, &reply.QueryMeta)
	return reply.Deployment, nil
}

// deploymentAllocations serves GET /v1/deployment/allocations/:id.
func (s *httpServer) deploymentAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.DeploymentSpecificRequest{DeploymentID: r.PathValue("id"), QueryOptions: q}
	var reply structs.DeploymentAllocsResponse
	if err := s.RPC.RPC(structs.DeploymentAllocationsRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Allocations == nil {
		reply.Allocations = []*structs.AllocListStub{}
	}
	return reply.Allocations, nil
}

// deploymentPromote serves POST /v1/deployment/promote/:id with a body
// {"DeploymentID", "All", "Groups"} (no body: all groups).
func (s *httpServer) deploymentPromote(w http.ResponseWriter, r *http.Request) (any, error) {
	var args structs.DeploymentPromoteRequest
	if r.ContentLength != 0 {
		if err := decodeBody(r, &args); err != nil {
			return nil, err
		}
	} else {
		args.All = true
	}
	id := r.PathValue("id")
	if args.DeploymentID != "" && args.DeploymentID != id {
		return nil, badRequest("deployment ID in the body (%q) does not match the path (%q)", args.DeploymentID, id)
	}
	args.DeploymentID, args.Eval = id, nil
	args.WriteRequest = s.parseWrite(r)
	var reply structs.DeploymentUpdateResponse
	if err := s.RPC.RPC(structs.DeploymentPromoteRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &reply, nil
}

// deploymentFail serves POST /v1/deployment/fail/:id.
func (s *httpServer) deploymentFail(w http.ResponseWriter, r *http.Request) (any, error) {
	args := structs.DeploymentFailRequest{DeploymentID: r.PathValue("id"), WriteRequest: s.parseWrite(r)}
	var reply structs.DeploymentUpdateResponse
	if err := s.RPC.RPC(structs.DeploymentFailRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &reply, nil
}

func (s *httpServer) jobDeploymentList(r *http.Request) (*structs.DeploymentListResponse, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.DeploymentByJobRequest{JobID: r.PathValue("id"), QueryOptions: q}
	var reply structs.DeploymentListResponse
	if err := s.RPC.RPC(structs.DeploymentByJobRPC, &args, &reply); err != nil {
		return nil, err
	}
	return &reply, nil
}

// jobDeployments serves GET /v1/job/:id/deployments, newest first.
func (s *httpServer) jobDeployments(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := s.jobDeploymentList(r)
	if err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Deployments == nil {
		reply.Deployments = []*structs.Deployment{}
	}
	return reply.Deployments, nil
}

// jobLatestDeployment serves GET /v1/job/:id/deployment: the newest
// deployment, or null.
func (s *httpServer) jobLatestDeployment(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := s.jobDeploymentList(r)
	if err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if len(reply.Deployments) == 0 {
		return json.RawMessage("null"), nil // Nomad's answer: a JSON null
	}
	return reply.Deployments[0], nil
}

// deploymentPause serves POST /v1/deployment/pause/:id with a body
// {"DeploymentID", "Pause"}.
func (s *httpServer) deploymentPause(w http.ResponseWriter, r *http.Request) (any, error) {
	var args structs.DeploymentPauseRequest
	if err := decodeBody(r, &args); err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	if args.DeploymentID != "" && args.DeploymentID != id {
		return nil, badRequest("deployment ID in the body (%q) does not match the path (%q)", args.DeploymentID, id)
	}
	args.DeploymentID, args.WriteRequest = id, s.parseWrite(r)
	var reply structs.DeploymentUpdateResponse
	if err := s.RPC.RPC(structs.DeploymentPauseRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &reply, nil
}
