package endpoints

import (
	"strconv"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// enforceIndexPrefix starts every check-index conflict message (Nomad's
// RegisterEnforceIndexErrPrefix: scripts match on it).
const enforceIndexPrefix = "Enforcing job modify index"

// enforceJobModifyIndex applies Job.Register's EnforceIndex as Nomad does:
// JobModifyIndex 0 means the job must not exist yet; otherwise it must
// exist with that JobModifyIndex. A mismatch is a 409 and nothing is
// written.
func enforceJobModifyIndex(args *structs.JobRegisterRequest, existing *structs.Job) error {
	if !args.EnforceIndex {
		return nil
	}
	jmi := args.JobModifyIndex
	switch {
	case existing != nil && jmi == 0:
		return structs.NewCodedError(structs.ErrCodeConflict, "%s 0: job already exists", enforceIndexPrefix)
	case existing != nil && jmi != existing.JobModifyIndex:
		return structs.NewCodedError(structs.ErrCodeConflict,
			"%s %d: job exists with conflicting job modify index: %d", enforceIndexPrefix, jmi, existing.JobModifyIndex)
	case existing == nil && jmi != 0:
		return structs.NewCodedError(structs.ErrCodeConflict, "%s %d: job does not exist", enforceIndexPrefix, jmi)
	}
	return nil
}

// setJobVersion numbers a job about to be registered: a new job is version
// 0; an update keeps the current version (and its stability) when the spec
// is unchanged, else takes the next version, not yet stable.
func setJobVersion(existing, job *structs.Job) {
	if existing == nil {
		job.Version, job.Stable = 0, false
		return
	}
	job.Version, job.Stable = existing.Version, existing.Stable
	if jobSpecChanged(existing, job) {
		job.Version++
		job.Stable = false
	}
}

// stopJobVersion turns a copy of the current job into its stopped version:
// stopping is a change of the spec, so a new version (as in Nomad), unless
// the job was stopped already.
func stopJobVersion(job *structs.Job) {
	if !job.Stop {
		job.Version++
		job.Stable = false
	}
	job.Stop = true
}

// GetJobVersions lists a job's kept versions, newest first, with the diffs
// between consecutive versions when asked; blocking. An unknown job has no
// versions (the HTTP layer answers 404).
func (e *Job) GetJobVersions(args *structs.JobVersionsRequest, reply *structs.JobVersionsResponse) error {
	ns := namespaceOf(args.Namespace)
	if err := e.d.allowNamespaceOp(args.AuthToken, ns, capReadJob); err != nil {
		return err
	}
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		versions, err := st.JobVersionsByID(ws, ns, args.JobID)
		if err != nil {
			return 0, err
		}
		reply.Versions, reply.Diffs = versions, nil
		if args.Diffs {
			for i := 0; i+1 < len(versions); i++ {
				reply.Diffs = append(reply.Diffs, versions[i+1].Diff(versions[i]))
			}
		}
		var index uint64
		for _, v := range versions {
			index = max(index, v.ModifyIndex)
		}
		if index == 0 {
			return st.Index(state.TableJobVersions)
		}
		return index, nil
	})
}

// Revert registers a kept version's spec again as a new version of the job
// (with its eval). The version must exist and not be the current one; with
// EnforcePriorVersion the current version must be that one (409).
func (e *Job) Revert(args *structs.JobRevertRequest, reply *structs.JobRegisterResponse) error {
	ns := namespaceOf(args.Namespace)
	if err := e.d.allowNamespaceOp(args.AuthToken, ns, capSubmitJob); err != nil {
		return err
	}
	snap := e.d.State().Snapshot()
	cur, err := existingJob(snap, ns, args.JobID)
	if err != nil {
		return err
	}
	if args.JobVersion == cur.Version {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "can't revert to current version")
	}
	old, err := snap.JobByIDAndVersion(nil, ns, args.JobID, args.JobVersion)
	if err != nil {
		return err
	}
	if old == nil {
		return structs.NewCodedError(structs.ErrCodeNotFound, "job %q in namespace %q at version %d not found", args.JobID, ns, args.JobVersion)
	}
	// The new version was written as the old one was: keep its source (as Nomad).
	sub, err := snap.JobSubmission(nil, ns, args.JobID, args.JobVersion)
	if err != nil {
		return err
	}
	reg := &structs.JobRegisterRequest{Job: old.Copy(), Submission: sub.Copy(), WriteRequest: args.WriteRequest}
	reg.Namespace = ns
	if args.EnforcePriorVersion != nil {
		if cur.Version != *args.EnforcePriorVersion {
			return structs.NewCodedError(structs.ErrCodeConflict, "current job has version %d; enforcing version %d", cur.Version, *args.EnforcePriorVersion)
		}
		reg.EnforceIndex, reg.JobModifyIndex = true, cur.JobModifyIndex
	}
	return e.Register(reg, reply)
}

// Scale sets one group's count through a normal registration (a new
// version and an eval). Target must name an existing group ("Group"); the
// count can't be negative (400). A nil Count changes nothing (Nomad records
// a scaling event then; nomadish keeps none). JobModifyIndex, when set,
// must match (409).
func (e *Job) Scale(args *structs.JobScaleRequest, reply *structs.JobRegisterResponse) error {
	ns := namespaceOf(args.Namespace)
	if err := e.d.allowNamespaceOp(args.AuthToken, ns, capScaleJob); err != nil {
		return err
	}
	group := args.Target["Group"]
	if group == "" {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "missing task group name for scaling action")
	}
	if args.Count != nil && *args.Count < 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "scaling action count can't be negative")
	}
	cur, err := existingJob(e.d.State(), ns, args.JobID)
	if err != nil {
		return err
	}
	tg := cur.LookupTaskGroup(group)
	if tg == nil {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "task group %q specified for scaling does not exist in job", group)
	}
	if args.JobModifyIndex != 0 && args.JobModifyIndex != cur.JobModifyIndex {
		return structs.NewCodedError(structs.ErrCodeConflict, "%s %d: job exists with conflicting job modify index: %d",
			enforceIndexPrefix, args.JobModifyIndex, cur.JobModifyIndex)
	}
	if args.Count != nil {
		if err := checkScaleBounds(tg, *args.Count); err != nil { // scaling.go
			return err
		}
	}
	if args.Count == nil {
		reply.JobModifyIndex = cur.JobModifyIndex
		reply.Index = cur.ModifyIndex
		return nil
	}
	if cur.Stop {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "job %q is stopped: run it before scaling", args.JobID)
	}
	job := cur.Copy()
	job.LookupTaskGroup(group).Count = int(*args.Count)
	reg := &structs.JobRegisterRequest{Job: job, WriteRequest: args.WriteRequest,
		EnforceIndex: true, JobModifyIndex: cur.JobModifyIndex}
	reg.Namespace = ns
	return e.Register(reg, reply)
}

// ScaleStatus reports each group's desired count and its allocations;
// blocking. Healthy and Unhealthy stay 0 until deployments report health.
func (e *Job) ScaleStatus(args *structs.JobSpecificRequest, reply *structs.JobScaleStatusResponse) error {
	ns := namespaceOf(args.Namespace)
	if err := e.d.allowNamespaceOp(args.AuthToken, ns, capReadJobScaling); err != nil {
		return err
	}
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		job, err := st.JobByID(ws, ns, args.JobID)
		if err != nil {
			return 0, err
		}
		if job == nil {
			return 0, structs.ErrJobNotFound
		}
		allocs, err := st.AllocsByJob(ws, ns, args.JobID)
		if err != nil {
			return 0, err
		}
		*reply = structs.JobScaleStatusResponse{JobID: job.ID, Namespace: job.Namespace, JobCreateIndex: job.CreateIndex,
			JobModifyIndex: job.JobModifyIndex, JobStopped: job.Stop, TaskGroups: map[string]structs.TaskGroupScaleStatus{},
			QueryMeta: reply.QueryMeta}
		for _, tg := range job.TaskGroups {
			reply.TaskGroups[tg.Name] = structs.TaskGroupScaleStatus{Desired: tg.Count, Events: []structs.ScalingEvent{}}
		}
		for _, a := range allocs {
			s, ok := reply.TaskGroups[a.TaskGroup]
			if !ok || a.TerminalStatus() {
				continue
			}
			s.Placed++
			if a.ClientStatus == structs.AllocClientStatusRunning {
				s.Running++
			}
			reply.TaskGroups[a.TaskGroup] = s
		}
		return tableIndex(st, state.TableJobs, state.TableAllocs)
	})
}

// Stable marks one version of a job stable or not (the deployment watcher
// and PUT /v1/job/:id/stable). An unknown version is a 404.
func (e *Job) Stable(args *structs.JobStabilityRequest, reply *structs.JobStabilityResponse) error {
	ns := namespaceOf(args.Namespace)
	if err := e.d.allowNamespaceOp(args.AuthToken, ns, capSubmitJob); err != nil {
		return err
	}
	v, err := e.d.State().JobByIDAndVersion(nil, ns, args.JobID, args.JobVersion)
	if err != nil {
		return err
	}
	if v == nil {
		return structs.NewCodedError(structs.ErrCodeNotFound, "job %q in namespace %q at version %d not found", args.JobID, ns, args.JobVersion)
	}
	req := *args
	req.Namespace = ns
	index, _, err := e.d.Apply(structs.JobStabilityRequestType, &req)
	if err != nil {
		return err
	}
	reply.JobModifyIndex, reply.Index = index, index
	return nil
}

// planDiff is the diff Job.Plan returns: old -> cur, annotated with what
// the dry run would do to each group and what each task's change forces.
func planDiff(old, cur *structs.Job, ann *structs.PlanAnnotations) *structs.JobDiff {
	d := old.Diff(cur)
	for _, tg := range d.TaskGroups {
		var u *structs.DesiredUpdates
		if ann != nil {
			u = ann.DesiredTGUpdates[tg.Name]
		}
		annotateGroup(tg, u)
	}
	return d
}

// Update types of TaskGroupDiff.Updates and annotations (Nomad's strings).
const (
	updateIgnore      = "ignore"
	updateCreate      = "create"
	updateDestroy     = "destroy"
	updateMigrate     = "migrate"
	updateCanary      = "canary"
	updateInPlace     = "in-place update"
	updateDestructive = "create/destroy update"

	forcesCreate      = "forces create"
	forcesDestroy     = "forces destroy"
	forcesInPlace     = "forces in-place update"
	forcesDestructive = "forces create/destroy update"
)

func annotateGroup(tg *structs.TaskGroupDiff, u *structs.DesiredUpdates) {
	if u != nil {
		tg.Updates = map[string]uint64{}
		for k, n := range map[string]uint64{updateIgnore: u.Ignore, updateCreate: u.Place, updateDestroy: u.Stop,
			updateMigrate: u.Migrate, updateCanary: u.Canary, updateInPlace: u.InPlaceUpdate, updateDestructive: u.DestructiveUpdate} {
			if n > 0 {
				tg.Updates[k] = n
			}
		}
	}
	for _, f := range tg.Fields {
		if f.Name != "Count" || f.Type != structs.DiffTypeEdited {
			continue
		}
		if atoi(f.New) > atoi(f.Old) {
			f.Annotations = append(f.Annotations, forcesCreate)
		} else {
			f.Annotations = append(f.Annotations, forcesDestroy)
		}
	}
	for _, t := range tg.Tasks {
		annotateTask(t)
	}
}

// annotateTask says what a task's change forces, as Nomad does: a kill
// timeout, kill signal, shutdown delay, restart policy, log config or
// constraint change is done in place,
// any other change (meta too: the task sees it as NOMAD_META_*) replaces
// the allocation.
func annotateTask(t *structs.TaskDiff) {
	switch t.Type {
	case structs.DiffTypeAdded:
		t.Annotations = append(t.Annotations, forcesCreate)
		return
	case structs.DiffTypeDeleted:
		t.Annotations = append(t.Annotations, forcesDestroy)
		return
	case structs.DiffTypeNone:
		return
	}
	destructive := false
	for _, f := range t.Fields {
		if f.Name != "KillTimeout" && f.Name != "KillSignal" && f.Name != "ShutdownDelay" { // meta is NOMAD_META_*: destructive
			destructive = true
		}
	}
	for _, o := range t.Objects {
		if o.Name != "LogConfig" && o.Name != "Constraint" && o.Name != "Affinity" && o.Name != "RestartPolicy" {
			destructive = true
		}
	}
	if destructive {
		t.Annotations = append(t.Annotations, forcesDestructive)
	} else {
		t.Annotations = append(t.Annotations, forcesInPlace)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
