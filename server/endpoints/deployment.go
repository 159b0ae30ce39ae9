package endpoints

import (
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/deploymentwatcher"
	"github.com/nomadish/nomadish/server/paginate"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Deployment serves the Deployment.* RPCs.
type Deployment struct{ d *Deps }

// List lists deployments, newest first (namespace and ID prefix filters);
// blocking.
func (e *Deployment) List(args *structs.DeploymentListRequest, reply *structs.DeploymentListResponse) error {
	keep, err := e.d.namespaceFilter(args.AuthToken, listNamespace(args.Namespace), capReadJob)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableDeployments}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		all, err := st.Deployments(ws, "*")
		if err != nil {
			return 0, err
		}
		reply.Deployments = make([]*structs.Deployment, 0, len(all))
		for _, d := range all {
			if inNamespace(args.Namespace, d.Namespace) && strings.HasPrefix(d.ID, args.Prefix) && (keep == nil || keep(d.Namespace)) {
				reply.Deployments = append(reply.Deployments, d)
			}
		}
		if reply.Deployments, err = pageList(reply.Deployments, paginate.ByCreateIndex, deploymentKey, &args.QueryOptions, &reply.QueryMeta); err != nil {
			return 0, err
		}
		return st.Index(state.TableDeployments)
	})
}

// ByJob lists a job's deployments, newest first; blocking.
func (e *Deployment) ByJob(args *structs.DeploymentByJobRequest, reply *structs.DeploymentListResponse) error {
	if err := e.d.allowNamespaceOp(args.AuthToken, namespaceOf(args.Namespace), capReadJob); err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableDeployments}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		all, err := st.DeploymentsByJobID(ws, namespaceOf(args.Namespace), args.JobID)
		if err != nil {
			return 0, err
		}
		reply.Deployments = append([]*structs.Deployment{}, all...)
		return st.Index(state.TableDeployments)
	})
}

// GetDeployment reads one deployment (nil when absent); blocking.
func (e *Deployment) GetDeployment(args *structs.DeploymentSpecificRequest, reply *structs.SingleDeploymentResponse) error {
	a, accessor, err := e.d.resolveACL(args.AuthToken)
	if err != nil {
		return err
	}
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		d, err := st.DeploymentByID(ws, args.DeploymentID)
		if err != nil {
			return 0, err
		}
		if d != nil && !a.AllowNamespaceOperation(d.Namespace, capReadJob) {
			return 0, e.d.denied(accessor, d.Namespace, capReadJob)
		}
		reply.Deployment = d
		if d != nil {
			return d.ModifyIndex, nil
		}
		return st.Index(state.TableDeployments)
	})
}

// Allocations lists a deployment's allocations; blocking.
func (e *Deployment) Allocations(args *structs.DeploymentSpecificRequest, reply *structs.DeploymentAllocsResponse) error {
	a, _, err := e.d.resolveACL(args.AuthToken)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableAllocs, state.TableDeployments}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		allocs, err := st.AllocsByDeployment(ws, args.DeploymentID)
		if err != nil {
			return 0, err
		}
		reply.Allocations = structs.AllocStubs(allowedAllocs(a, allocs))
		return st.Index(state.TableAllocs)
	})
}

// activeDeployment returns a running deployment, or a coded error: 404
// unknown, 403 when the token (secret) lacks submit-job in its namespace,
// 400 when it is no longer running.
func (e *Deployment) activeDeployment(id, secret string) (*structs.Deployment, *structs.Job, error) {
	st := e.d.State()
	d, err := st.DeploymentByID(nil, id)
	if err != nil {
		return nil, nil, err
	}
	if d == nil {
		return nil, nil, structs.NewCodedError(structs.ErrCodeNotFound, "deployment %q not found", id)
	}
	if err := e.d.allowNamespaceOp(secret, d.Namespace, capSubmitJob); err != nil {
		return nil, nil, err
	}
	if !d.Active() {
		return nil, nil, structs.NewCodedError(structs.ErrCodeBadRequest, "can't change deployment %q: it is %s", id, d.Status)
	}
	job, err := st.JobByID(nil, d.Namespace, d.JobID)
	if err != nil {
		return nil, nil, err
	}
	return d, job, nil
}

// Promote promotes the canaries of all or the named groups and creates an
// eval that continues the rollout.
func (e *Deployment) Promote(args *structs.DeploymentPromoteRequest, reply *structs.DeploymentUpdateResponse) error {
	d, job, err := e.activeDeployment(args.DeploymentID, args.AuthToken)
	if err != nil {
		return err
	}
	if !d.RequiresPromotion() {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "deployment %q has no canaries to promote", d.ID)
	}
	for _, g := range args.Groups {
		if d.TaskGroups[g] == nil {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "deployment %q has no group %q", d.ID, g)
		}
	}
	req := &structs.DeploymentPromoteRequest{DeploymentID: d.ID, All: args.All || len(args.Groups) == 0, Groups: args.Groups}
	if job != nil {
		req.Eval = deploymentwatcher.NewEval(job, e.d.Clock.Now())
	}
	index, _, err := e.d.Apply(structs.DeploymentPromoteRequestType, req)
	if err != nil {
		return err
	}
	if req.Eval != nil {
		reply.EvalID, reply.EvalCreateIndex = req.Eval.ID, index
	}
	reply.DeploymentModifyIndex, reply.Index = index, index
	return nil
}

// Fail marks a running deployment failed (rolling back when it
// auto-reverts) and creates an eval.
func (e *Deployment) Fail(args *structs.DeploymentFailRequest, reply *structs.DeploymentUpdateResponse) error {
	d, job, err := e.activeDeployment(args.DeploymentID, args.AuthToken)
	if err != nil {
		return err
	}
	versions, err := e.d.State().JobVersionsByID(nil, d.Namespace, d.JobID)
	if err != nil {
		return err
	}
	req := deploymentwatcher.FailRequest(d, structs.DeploymentStatusDescriptionFailedByUser, job, versions, e.d.Clock.Now())
	index, _, err := e.d.Apply(structs.DeploymentStatusUpdateRequestType, req)
	if err != nil {
		return err
	}
	if req.Eval != nil {
		reply.EvalID, reply.EvalCreateIndex = req.Eval.ID, index
	}
	if req.Job != nil {
		v := req.Job.Version
		reply.RevertedJobVersion = &v
	}
	reply.DeploymentModifyIndex, reply.Index = index, index
	return nil
}

// Pause pauses a running deployment (no more destructive updates) or
// resumes a paused one, with an eval that continues the rollout.
func (e *Deployment) Pause(args *structs.DeploymentPauseRequest, reply *structs.DeploymentUpdateResponse) error {
	d, job, err := e.activeDeployment(args.DeploymentID, args.AuthToken)
	if err != nil {
		return err
	}
	u := &structs.DeploymentStatusUpdate{DeploymentID: d.ID, Status: structs.DeploymentStatusRunning,
		StatusDescription: structs.DeploymentStatusDescriptionRunning}
	if d.RequiresPromotion() {
		u.StatusDescription = structs.DeploymentStatusDescriptionRunningNeedsPromotion
	}
	if args.Pause {
		u.Status, u.StatusDescription = structs.DeploymentStatusPaused, structs.DeploymentStatusDescriptionPaused
	}
	req := &structs.DeploymentStatusUpdateRequest{DeploymentUpdate: u}
	if !args.Pause && job != nil {
		req.Eval = deploymentwatcher.NewEval(job, e.d.Clock.Now())
	}
	index, _, err := e.d.Apply(structs.DeploymentStatusUpdateRequestType, req)
	if err != nil {
		return err
	}
	if req.Eval != nil {
		reply.EvalID, reply.EvalCreateIndex = req.Eval.ID, index
	}
	reply.DeploymentModifyIndex, reply.Index = index, index
	return nil
}
