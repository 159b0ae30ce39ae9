package endpoints

import (
	"reflect"
	"strings"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/drivers/schema"
	"github.com/nomadish/nomadish/internal/shared"
	"github.com/nomadish/nomadish/jobcheck"
	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/server/paginate"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Job serves the Job.* RPCs.
type Job struct {
	d     *Deps
	lists shared.Cache // answers of Job.List shared by concurrent readers
}

// prepareJob copies, canonicalizes and validates a submitted job and
// checks its drivers and their config (jobcheck.Prepare): 400 on bad input.
func prepareJob(in *structs.Job, namespace string, drivers schema.Lookup) (*structs.Job, error) {
	return jobcheck.Prepare(in, namespace, drivers)
}

// Register registers or updates a job and creates its evaluation, both in
// one raft entry.
func (e *Job) Register(args *structs.JobRegisterRequest, reply *structs.JobRegisterResponse) error {
	job, err := prepareJob(args.Job, args.Namespace, e.d.DriverSchemas)
	if err != nil {
		return err
	}
	if err := e.d.allowNamespaceOp(args.AuthToken, job.Namespace, capSubmitJob); err != nil {
		return err
	}
	if err := checkJobLimits(job, e.d.Limits.JobMaxCount); err != nil {
		return err
	}
	if err := checkJobTenancy(e.d.State().Snapshot(), job); err != nil {
		return err
	}
	existing, err := e.d.State().JobByID(nil, job.Namespace, job.ID)
	if err != nil {
		return err
	}
	if err := enforceJobModifyIndex(args, existing); err != nil {
		return err
	}
	if existing != nil && existing.Type != job.Type {
		// As Nomad: the reconcilers of two types disagree on names and counts.
		return structs.NewCodedError(structs.ErrCodeBadRequest, "cannot update job from type %q to %q", existing.Type, job.Type)
	}
	now := e.d.Clock.Now()
	job.Status = structs.JobStatusPending
	job.SubmitTime = now.UnixNano()
	setJobVersion(existing, job)
	eval := newJobEval(job, structs.EvalTriggerJobRegister, now)
	if job.IsParent() {
		eval = nil // periodic and parameterized parents are never scheduled (job_dispatch.go)
	}
	sub, warn := keptSubmission(args.Submission, e.d.Limits.JobMaxSourceSize) // job_submission.go
	req := &structs.JobRegisterRequest{Job: job, Submission: sub, Eval: eval, WriteRequest: args.WriteRequest}
	index, _, err := e.d.Apply(structs.JobRegisterRequestType, req)
	if err != nil {
		return err
	}
	reply.EvalCreateIndex, reply.JobModifyIndex = index, index
	reply.Warnings = warn
	if eval != nil {
		reply.EvalID = eval.ID
	} else {
		reply.EvalCreateIndex = 0
	}
	reply.Index = index
	return nil
}

func newJobEval(job *structs.Job, trigger string, now time.Time) *structs.Evaluation {
	return &structs.Evaluation{
		ID: structs.GenerateUUID(), Namespace: job.Namespace, Priority: job.Priority, Type: job.Type,
		TriggeredBy: trigger, JobID: job.ID, Status: structs.EvalStatusPending,
		CreateTime: now.UnixNano(), ModifyTime: now.UnixNano(),
	}
}

// jobSpecChanged reports whether the user-visible spec differs (ignoring
// status, version, indexes and submit time).
func jobSpecChanged(old, cur *structs.Job) bool {
	a, b := old.Copy(), cur.Copy()
	for _, j := range []*structs.Job{a, b} {
		j.Status, j.StatusDescription, j.Stable, j.Version, j.SubmitTime = "", "", false, 0, 0
		j.CreateIndex, j.ModifyIndex, j.JobModifyIndex = 0, 0, 0
	}
	return !reflect.DeepEqual(a, b)
}

// Deregister stops a job (or purges it) and creates a deregister eval, in
// one raft entry. Unknown job: 404.
func (e *Job) Deregister(args *structs.JobDeregisterRequest, reply *structs.JobDeregisterResponse) error {
	ns := namespaceOf(args.Namespace)
	if err := e.d.allowNamespaceOp(args.AuthToken, ns, capSubmitJob); err != nil {
		return err
	}
	existing, err := existingJob(e.d.State(), ns, args.JobID)
	if err != nil {
		return err
	}
	eval := newJobEval(existing, structs.EvalTriggerJobDeregister, e.d.Clock.Now())
	entry := &structs.JobDeregisterEntry{JobDeregisterRequest: *args}
	entry.Namespace, entry.Eval = ns, eval
	if !args.Purge {
		entry.Job = existing.Copy()
		stopJobVersion(entry.Job)
	}
	index, _, err := e.d.Apply(structs.JobDeregisterRequestType, entry)
	if err != nil {
		return err
	}
	reply.EvalID, reply.EvalCreateIndex, reply.JobModifyIndex = eval.ID, index, index
	reply.Index = index
	return nil
}

// GetJob reads one job (nil when absent); blocking.
func (e *Job) GetJob(args *structs.JobSpecificRequest, reply *structs.SingleJobResponse) error {
	ns := namespaceOf(args.Namespace)
	if err := e.d.allowNamespaceOp(args.AuthToken, ns, capReadJob); err != nil {
		return err
	}
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		job, err := st.JobByID(ws, ns, args.JobID)
		if err != nil {
			return 0, err
		}
		reply.Job = job
		if job != nil {
			return job.ModifyIndex, nil
		}
		return st.Index(state.TableJobs)
	})
}

// List lists jobs of the namespace ("*": all) with their summaries; blocking.
// With ACLs on it needs list-jobs in the namespace; over "*" it lists
// the namespaces where the token has list-jobs.
func (e *Job) List(args *structs.JobListRequest, reply *structs.JobListResponse) error {
	ns := namespaceOf(args.Namespace)
	keep, err := e.d.namespaceFilter(args.AuthToken, ns, capListJobs)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableJobs, state.TableAllocs}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		index, err := tableIndex(st, state.TableJobs, state.TableAllocs)
		if err != nil {
			return 0, err
		}
		v, err := e.lists.Get("Job.List\x00"+ns+"\x00"+args.Prefix, index, func() (any, error) {
			return jobStubs(st, ns, args.Prefix)
		})
		if err != nil {
			return 0, err
		}
		reply.Jobs = filterJobStubs(v.([]*structs.JobListStub), keep) // shared: read-only
		if reply.Jobs, err = pageList(reply.Jobs, paginate.ByNamespaceID, jobKey, &args.QueryOptions, &reply.QueryMeta); err != nil {
			return 0, err
		}
		return index, nil
	})
}

// jobStubs lists the stubs, with summaries, of namespace's jobs whose ID
// starts with prefix.
func jobStubs(st *state.StateSnapshot, ns, prefix string) ([]*structs.JobListStub, error) {
	jobs, err := st.Jobs(nil, ns)
	if err != nil {
		return nil, err
	}
	out := make([]*structs.JobListStub, 0, len(jobs))
	for _, j := range jobs {
		if !strings.HasPrefix(j.ID, prefix) {
			continue
		}
		allocs, err := st.AllocsByJob(nil, j.Namespace, j.ID)
		if err != nil {
			return nil, err
		}
		stub := j.Stub(JobSummary(j, allocs))
		if err := addChildrenSummary(st, j, stub.JobSummary); err != nil { // job_dispatch.go
			return nil, err
		}
		out = append(out, stub)
	}
	return out, nil
}

// JobSummary counts a job's allocations by client status per group.
func JobSummary(job *structs.Job, allocs []*structs.Allocation) *structs.JobSummary {
	sum := structs.NewJobSummary(job)
	for _, a := range allocs {
		sum.Count(a.TaskGroup, a.ClientStatus)
	}
	return sum
}

// Allocations lists a job's allocations; blocking.
func (e *Job) Allocations(args *structs.JobSpecificRequest, reply *structs.JobAllocationsResponse) error {
	ns := namespaceOf(args.Namespace)
	if err := e.d.allowNamespaceOp(args.AuthToken, ns, capReadJob); err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableAllocs}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		allocs, err := st.AllocsByJob(ws, ns, args.JobID)
		if err != nil {
			return 0, err
		}
		reply.Allocations = structs.AllocStubs(allocs)
		return st.Index(state.TableAllocs)
	})
}

// Evaluations lists a job's evaluations; blocking.
func (e *Job) Evaluations(args *structs.JobSpecificRequest, reply *structs.JobEvaluationsResponse) error {
	ns := namespaceOf(args.Namespace)
	if err := e.d.allowNamespaceOp(args.AuthToken, ns, capReadJob); err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableEvals}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		evals, err := st.EvalsByJob(ws, ns, args.JobID)
		if err != nil {
			return 0, err
		}
		reply.Evaluations = evals
		if reply.Evaluations == nil {
			reply.Evaluations = []*structs.Evaluation{}
		}
		return st.Index(state.TableEvals)
	})
}

// Plan dry-runs the scheduler for the job as it would be registered,
// against a snapshot; nothing is written.
func (e *Job) Plan(args *structs.JobPlanRequest, reply *structs.JobPlanResponse) error {
	job, err := prepareJob(args.Job, args.Namespace, e.d.DriverSchemas)
	if err != nil {
		return err
	}
	if err := e.d.allowNamespaceOp(args.AuthToken, job.Namespace, capSubmitJob); err != nil {
		return err
	}
	if err := checkJobLimits(job, e.d.Limits.JobMaxCount); err != nil {
		return err
	}
	snap := e.d.State().Snapshot()
	if err := checkJobTenancy(snap, job); err != nil {
		return err
	}
	existing, err := snap.JobByID(nil, job.Namespace, job.ID)
	if err != nil {
		return err
	}
	index, err := snap.LatestIndex(nil)
	if err != nil {
		return err
	}
	now := e.d.Clock.Now()
	job.Status = structs.JobStatusPending
	if existing != nil {
		job.CreateIndex, job.Version = existing.CreateIndex, existing.Version
		if jobSpecChanged(existing, job) {
			job.Version++
		}
		reply.JobModifyIndex = existing.JobModifyIndex
	}
	job.ModifyIndex, job.JobModifyIndex = index+1, index+1
	eval := newJobEval(job, structs.EvalTriggerJobRegister, now)
	eval.JobModifyIndex = job.JobModifyIndex
	dryPlan, ann, failed, err := scheduler.DryRun(job.Type, scheduler.WithJob(snap.ReadView(), job), eval, now)
	if err != nil {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "planning job: %v", err)
	}
	reply.Annotations, reply.FailedTGAllocs = ann, failed
	if args.WhyNotNode != "" {
		if reply.NodeVerdicts, err = whyNotNode(snap.ReadView(), dryPlan, job, args.WhyNotNode, args.WhyNotGroup, now); err != nil {
			return err
		}
	}
	if args.Diff {
		reply.Diff = planDiff(existing, job, ann)
	}
	reply.Index = index
	return nil
}

// jobReader is what existingJob reads: the store or one of its snapshots.
type jobReader interface {
	JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error)
}

// existingJob returns the job, or structs.ErrJobNotFound (a 404) when
// there is none.
func existingJob(r jobReader, ns, id string) (*structs.Job, error) {
	j, err := r.JobByID(nil, ns, id)
	if err != nil {
		return nil, err
	}
	if j == nil {
		return nil, structs.ErrJobNotFound
	}
	return j, nil
}
