package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// Periodic and parameterized jobs, and scaling policies, over HTTP
// (Nomad's paths and shapes): PUT /v1/job/:id/dispatch,
// PUT /v1/job/:id/periodic/force, GET /v1/scaling/policies,
// GET /v1/scaling/policy/:id.

// jobDispatchBody is api.JobDispatchRequest (Payload is base64 in JSON).
type jobDispatchBody struct {
	JobID            string
	Payload          []byte
	Meta             map[string]string
	IdempotencyToken string
}

// jobDispatch serves PUT|POST /v1/job/:id/dispatch.
func (s *httpServer) jobDispatch(w http.ResponseWriter, r *http.Request) (any, error) {
	var body jobDispatchBody
	if err := decodeBody(r, &body); err != nil {
		return nil, err
	}
	if body.JobID != "" && body.JobID != r.PathValue("id") {
		return nil, badRequest("Job ID does not match")
	}
	token := body.IdempotencyToken
	if token == "" {
		token = r.URL.Query().Get("idempotency_token") // the official client's WriteOptions.IdempotencyToken
	}
	args := structs.JobDispatchRequest{JobID: r.PathValue("id"), Payload: body.Payload, Meta: body.Meta,
		IdempotencyToken: token, WriteRequest: s.parseWrite(r)}
	var reply structs.JobDispatchResponse
	if err := s.RPC.RPC(structs.JobDispatchRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return reply, nil
}

// jobPeriodicForce serves PUT|POST /v1/job/:id/periodic/force.
func (s *httpServer) jobPeriodicForce(w http.ResponseWriter, r *http.Request) (any, error) {
	args := structs.PeriodicForceRequest{JobID: r.PathValue("id"), WriteRequest: s.parseWrite(r)}
	var reply structs.PeriodicForceResponse
	if err := s.RPC.RPC(structs.JobPeriodicForceRPC, &args, &reply); err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return reply, nil
}

// scalingPolicies serves GET /v1/scaling/policies (?job=, ?type=).
func (s *httpServer) scalingPolicies(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.ScalingPolicyListRequest{JobID: r.URL.Query().Get("job"), Type: r.URL.Query().Get("type"), QueryOptions: q}
	var reply structs.ScalingPolicyListResponse
	if err := s.RPC.RPC(structs.ScalingListPoliciesRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Policies == nil {
		reply.Policies = []*structs.ScalingPolicyListStub{}
	}
	return reply.Policies, nil
}

// scalingPolicy serves GET /v1/scaling/policy/:id; unknown is a 404.
func (s *httpServer) scalingPolicy(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	args := structs.ScalingPolicySpecificRequest{ID: r.PathValue("id"), QueryOptions: q}
	var reply structs.SingleScalingPolicyResponse
	if err := s.RPC.RPC(structs.ScalingGetPolicyRPC, &args, &reply); err != nil {
		return nil, err
	}
	setMeta(w, &reply.QueryMeta)
	if reply.Policy == nil {
		return nil, structs.NewCodedError(structs.ErrCodeNotFound, "scaling policy not found")
	}
	return reply.Policy, nil
}

// addChildrenSummary fills a periodic or parameterized parent's
// JobSummary.Children from the job list (children share the parent's ID
// prefix).
func (s *httpServer) addChildrenSummary(r *http.Request, job *structs.Job, sum *structs.JobSummary) error {
	if !job.IsParent() {
		return nil
	}
	args := structs.JobListRequest{QueryOptions: structs.QueryOptions{Region: job.Region, Namespace: job.Namespace,
		Prefix: job.ID + "/", AllowStale: true, AuthToken: requestToken(r)}}
	var reply structs.JobListResponse
	if err := s.RPC.RPC(structs.JobListRPC, &args, &reply); err != nil {
		return err
	}
	sum.Children = &structs.JobChildrenSummary{}
	for _, c := range reply.Jobs {
		if c.ParentID == job.ID {
			sum.Children.Count(c.Status)
		}
	}
	return nil
}
