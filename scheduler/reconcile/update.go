package reconcile

import (
	"reflect"
	"sort"

	"github.com/nomadish/nomadish/structs"
)

// Descriptions of the update reconciler.
const (
	allocCanaryPromoted = "alloc not needed as it was replaced by a promoted canary"
)

// updateKind is how an alloc of an older job version reaches the new one.
type updateKind int

const (
	updateIgnore      updateKind = iota // same job version: nothing to do
	updateInPlace                       // only non-destructive fields changed
	updateDestructive                   // the tasks changed: stop and place again
)

// classifyUpdate says how an alloc placed with job old reaches job's group
// tg. Versions with the same JobModifyIndex are the same; an alloc without a
// job is left alone. Changes to the set of tasks, a task's driver, user,
// config, env, cores, disk, log config or volume mounts, or to the group's
// ephemeral disk, network or volumes, are destructive; anything else (count, priority, restart,
// reschedule, update and migrate blocks, constraints, kill timeout, meta at
// any level, a task's cpu, memory and memory_max) is applied in place. Unlike
// Nomad, meta is in place because tasks do not see it (no NOMAD_META_* in
// their environment); cpu and memory changes are in place only when they
// still fit on the alloc's node (Input.InPlaceFits, inplace.go).
func classifyUpdate(old, job *structs.Job, tg *structs.TaskGroup) updateKind {
	if old == nil || old.JobModifyIndex == job.JobModifyIndex ||
		(old.Version == job.Version && old.CreateIndex == job.CreateIndex && job.CreateIndex != 0) {
		return updateIgnore // the server bumps Version on every spec change
	}
	oldTG := old.LookupTaskGroup(tg.Name)
	if oldTG == nil || len(oldTG.Tasks) != len(tg.Tasks) || !reflect.DeepEqual(oldTG.EphemeralDisk, tg.EphemeralDisk) ||
		!reflect.DeepEqual(oldTG.Networks, tg.Networks) { // ports are chosen at placement
		return updateDestructive
	}
	if !reflect.DeepEqual(oldTG.Volumes, tg.Volumes) { // host volumes are mounted when a task starts
		return updateDestructive
	}
	for _, t := range tg.Tasks {
		ot := oldTG.LookupTask(t.Name)
		if ot == nil || taskDestructivelyChanged(ot, t) {
			return updateDestructive
		}
		if !reflect.DeepEqual(ot.VolumeMounts, t.VolumeMounts) {
			return updateDestructive
		}
	}
	return updateInPlace
}

func taskDestructivelyChanged(a, b *structs.Task) bool {
	if !reflect.DeepEqual(a.Artifacts, b.Artifacts) { // fetched before a start only (client/getter)
		return true
	}
	return a.Driver != b.Driver || a.User != b.User ||
		!reflect.DeepEqual(a.Config, b.Config) || !reflect.DeepEqual(a.Env, b.Env) ||
		!reflect.DeepEqual(fixedResources(a.Resources), fixedResources(b.Resources)) ||
		!reflect.DeepEqual(a.LogConfig, b.LogConfig) ||
		!reflect.DeepEqual(a.Templates, b.Templates) // rendered before start, as Nomad
}

// tasksChanged reports whether an alloc placed with job old needs a
// destructive update to run tg of job.
func tasksChanged(old, job *structs.Job, tg *structs.TaskGroup) bool {
	return classifyUpdate(old, job, tg) == updateDestructive
}

// deploymentFor returns the group's state in the deployment this eval works
// under (the new one or the existing one of the job's version), or nil.
func (g *groupReconciler) deploymentState() *structs.DeploymentState {
	if g.deploy == nil || g.deploy.d == nil {
		return nil
	}
	return g.deploy.d.TaskGroups[g.tg.Name]
}

// updateChanged sorts the kept live allocs of older job versions: in-place
// updates leave keep for Result.InPlace; destructive ones are stopped and
// marked for replacement, at most the rolling limit of them (the others stay
// in keep, as they are, for a later eval). With unpromoted canaries the
// limit is zero and canaries are placed instead.
func (g *groupReconciler) updateChanged(u *structs.DesiredUpdates) {
	var destructive []*structs.Allocation
	kept := g.keep[:0]
	for _, a := range g.keep {
		if !isLive(a) {
			kept = append(kept, a)
			continue
		}
		switch classifyInPlace(a, g.job, g.tg, g.inPlaceFits) {
		case updateInPlace:
			g.inplace = append(g.inplace, a)
			u.InPlaceUpdate++
		case updateDestructive:
			destructive = append(destructive, a)
			kept = append(kept, a)
		default:
			kept = append(kept, a)
		}
	}
	g.keep = kept
	g.res.InPlace = append(g.res.InPlace, g.inplace...)
	g.ensureDeployment(len(destructive) > 0 || len(g.inplace) > 0, len(destructive) > 0)
	limit := g.rollingLimit(len(destructive))
	if s := g.deploymentState(); s != nil && s.DesiredCanaries > 0 && !s.Promoted {
		if g.deploy.d.Status == structs.DeploymentStatusRunning {
			g.placeCanaries(destructive, s, u)
		}
		limit = 0
	}
	sort.SliceStable(destructive, func(i, j int) bool { return destructive[i].Index() < destructive[j].Index() })
	if limit > len(destructive) {
		limit = len(destructive)
	}
	stopped := map[string]bool{}
	for _, a := range destructive[:limit] {
		g.res.Stop = append(g.res.Stop, Stop{Alloc: a, Description: allocUpdating})
		u.DestructiveUpdate++
		g.replaced[a.Index()] = a
		if g.updated == nil {
			g.updated = map[uint]bool{}
		}
		g.updated[a.Index()] = true
		stopped[a.ID] = true
	}
	kept = g.keep[:0]
	for _, a := range g.keep {
		if !stopped[a.ID] {
			kept = append(kept, a)
		}
	}
	g.keep = kept
}

// rollingLimit is how many destructive updates this eval may make: all of
// them without a rolling update block; none while the deployment is failed
// or paused, or when one of its allocs is unhealthy; else max_parallel less
// the deployment's allocs not yet healthy.
func (g *groupReconciler) rollingLimit(destructive int) int {
	if !g.tg.Update.Rolling() || destructive == 0 || g.deploy == nil {
		return destructive
	}
	d := g.deploy.d
	if d == nil {
		return g.tg.Update.MaxParallel
	}
	if !d.Active() || d.Status == structs.DeploymentStatusPaused {
		return 0
	}
	limit := g.tg.Update.MaxParallel
	for _, a := range append(append([]*structs.Allocation(nil), g.keep...), g.inplace...) {
		if a.DeploymentID != d.ID || !isLive(a) {
			continue
		}
		if a.DeploymentStatus.IsUnhealthy() {
			return 0
		}
		if !a.DeploymentStatus.IsHealthy() {
			limit--
		}
	}
	return max(limit, 0)
}

// placeCanaries places the canaries still missing, named after the
// allocs they will replace.
func (g *groupReconciler) placeCanaries(destructive []*structs.Allocation, s *structs.DeploymentState, u *structs.DesiredUpdates) {
	want := s.DesiredCanaries - len(g.canaries)
	if want <= 0 || len(destructive) == 0 {
		return
	}
	used := map[uint]bool{}
	for _, c := range g.canaries {
		used[c.Index()] = true
	}
	var idx []uint
	for _, a := range destructive {
		if !used[a.Index()] {
			used[a.Index()] = true
			idx = append(idx, a.Index())
		}
	}
	sort.Slice(idx, func(i, j int) bool { return idx[i] < idx[j] })
	for i := uint(0); len(idx) < want; i++ {
		if !used[i] {
			used[i] = true
			idx = append(idx, i)
		}
	}
	for _, i := range idx[:want] {
		g.res.Place = append(g.res.Place, Placement{TaskGroup: g.tg, Index: i, Name: structs.AllocName(g.job.ID, g.tg.Name, i), Canary: true})
		u.Canary++
	}
}

// isUnpromotedCanary reports whether a is a live canary of the deployment d
// whose group is not promoted yet: it is kept aside from the group's count.
func isUnpromotedCanary(a *structs.Allocation, d *structs.Deployment) bool {
	if d == nil || !a.DeploymentStatus.IsCanary() || a.DeploymentID != d.ID || !isLive(a) {
		return false
	}
	s := d.TaskGroups[a.TaskGroup]
	return s != nil && !s.Promoted
}

// deployCtx is the deployment one Reconcile works under, shared by the
// job's groups.
type deployCtx struct {
	// d is the deployment of the job's version: the existing one, or the
	// one created by this Reconcile (created set); nil if none.
	d       *structs.Deployment
	created bool
	job     *structs.Job
	res     *Result
	in      Input
}

// newDeployCtx returns the deployment context of a service job, nil for
// other types. An active deployment of an older version (or of a stopped or
// purged job) is cancelled.
func newDeployCtx(in Input, res *Result) *deployCtx {
	d := in.Deployment
	if d != nil && (in.Job.Stopped() || d.JobCreateIndex != in.Job.CreateIndex || d.JobVersion != in.Job.Version) {
		if d.Active() {
			desc := structs.DeploymentStatusDescriptionNewerJob
			if in.Job.Stopped() {
				desc = structs.DeploymentStatusDescriptionStoppedJob
			}
			res.DeploymentUpdates = append(res.DeploymentUpdates, &structs.DeploymentStatusUpdate{
				DeploymentID: d.ID, Status: structs.DeploymentStatusCancelled, StatusDescription: desc})
		}
		d = nil
	}
	if in.Job == nil || in.Job.Type != structs.JobTypeService {
		return nil
	}
	if d != nil {
		res.Deployment = d
	}
	return &deployCtx{d: d, job: in.Job, res: res, in: in}
}

// ensureDeployment creates the deployment of the job's version when the
// group rolls out with an update block and either none of its allocs runs
// this version yet or some must be updated; the group gets its state in it.
func (g *groupReconciler) ensureDeployment(updating, destructive bool) {
	dc := g.deploy
	if dc == nil || !g.tg.Update.Rolling() || g.tg.Count == 0 || (dc.d != nil && !dc.created) {
		return
	}
	if !updating && g.hadVersion {
		return
	}
	if dc.d == nil {
		dc.d = structs.NewDeployment(dc.job)
		dc.created = true
		dc.res.Deployment = dc.d
		dc.res.DeploymentCreated = true
	}
	up := g.tg.Update
	s := &structs.DeploymentState{
		AutoRevert: up.AutoRevert, AutoPromote: up.AutoPromote, ProgressDeadline: up.ProgressDeadline,
		DesiredTotal: g.tg.Count,
	}
	if destructive && up.Canary > 0 {
		s.DesiredCanaries = up.Canary
	}
	if up.ProgressDeadline > 0 {
		s.RequireProgressBy = dc.in.Now.Add(up.ProgressDeadline)
	}
	dc.d.TaskGroups[g.tg.Name] = s
	if s.DesiredCanaries > 0 && !s.AutoPromote {
		dc.d.StatusDescription = structs.DeploymentStatusDescriptionRunningNeedsPromotion
	}
}

// hasVersion reports whether any alloc ran the job's current version.
func hasVersion(allocs []*structs.Allocation, job *structs.Job) bool {
	for _, a := range allocs {
		if a.Job != nil && a.Job.Version == job.Version && a.Job.CreateIndex == job.CreateIndex {
			return true
		}
	}
	return false
}

// current reports whether a runs the job's version (no update needed).
func (g *groupReconciler) current(a *structs.Allocation) bool {
	return classifyUpdate(a.Job, g.job, g.tg) == updateIgnore
}
