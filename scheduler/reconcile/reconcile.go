package reconcile

import (
	"sort"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// Descriptions written on the allocations the reconciler stops.
const (
	allocNotNeeded     = "alloc not needed due to job update"
	allocJobStopped    = "alloc not needed since job was stopped"
	allocGroupRemoved  = "alloc not needed as task group was removed"
	allocLost          = "alloc is lost since its node is down"
	allocScaledDown    = "alloc not needed as group count was reduced"
	allocDuplicateName = "alloc not needed as its name is used by another alloc"
	allocUpdating      = "alloc is being updated due to job update"
)

// Input is everything the reconciler looks at. Job nil means the job was
// purged. TaintedNodes maps the ID of every node an allocation sits on that
// can no longer run it (down, disconnected, or gone: a nil value) to the node.
type Input struct {
	Job          *structs.Job
	Allocs       []*structs.Allocation
	TaintedNodes map[string]*structs.Node
	Now          time.Time
	// EvalID is the eval being processed: a failed alloc whose
	// FollowupEvalID it is gets rescheduled now.
	EvalID string
	// Deployment is the job's latest deployment, or nil.
	Deployment *structs.Deployment
	// InPlaceFits, when set, is asked about each live alloc the rules
	// would update in place to a new cpu or memory (Resized): false (the
	// new size does not fit on its node) makes the update destructive.
	// Nil: always fits. It may record what it accepts (to check later
	// allocs on the same node against it); it is called at most once per
	// alloc.
	InPlaceFits func(a *structs.Allocation, tg *structs.TaskGroup) bool
}

// Placement is one allocation to place.
type Placement struct {
	TaskGroup *structs.TaskGroup
	Name      string
	Index     uint
	// Previous is the allocation this one replaces (lost, failed or
	// updated), or nil.
	Previous *structs.Allocation
	// Destructive is set when Previous is stopped in the same plan because
	// the group's tasks changed.
	Destructive bool
	// Reschedule is set when Previous failed and is replaced under the
	// group's reschedule policy: the new alloc carries its tracker.
	Reschedule bool
	// Canary is set for a canary of the deployment (update.go).
	Canary bool
}

// Stop is one allocation to stop.
type Stop struct {
	Alloc        *structs.Allocation
	Description  string
	ClientStatus string // "" or structs.AllocClientStatusLost
}

// Result is the reconciler's decision. Lists are ordered by task group (the
// job's order, then removed groups by name) and by index within a group.
type Result struct {
	Place  []Placement
	Stop   []Stop
	Ignore []*structs.Allocation
	// Disconnecting are live allocs on a disconnected node, within their
	// group's disconnect window, to mark unknown (still desired to run).
	// DisconnectExpiry is the earliest end of their windows (zero when
	// Disconnecting is empty): a follow-up eval then marks them lost.
	Disconnecting    []*structs.Allocation
	DisconnectExpiry time.Time
	// Followups are the delayed reschedules, earliest first: one follow-up
	// eval each, for failed allocs that may not be replaced yet.
	Followups []Followup
	// NotRescheduled counts, per group, failed allocs that the reschedule
	// policy does not allow to be replaced (disabled or attempts used up).
	NotRescheduled map[string]int
	// DesiredTGUpdates counts place/stop/ignore/destructive-update per
	// group (plan annotations). A destructive update is one entry in Stop
	// and one in Place, counted only as DestructiveUpdate.
	DesiredTGUpdates map[string]*structs.DesiredUpdates
	// InPlace are live allocs of an older job version to update in place
	// (to the new job, without a restart).
	InPlace []*structs.Allocation
	// Deployment is the deployment new and updated allocs join (nil: none);
	// DeploymentCreated says the plan must create it. DeploymentUpdates
	// cancel older deployments.
	Deployment        *structs.Deployment
	DeploymentCreated bool
	DeploymentUpdates []*structs.DeploymentStatusUpdate
}

// Fields returns key/value pairs for structured logs.
func (r *Result) Fields() []any {
	return []any{"place", len(r.Place), "stop", len(r.Stop), "ignore", len(r.Ignore), "followups", len(r.Followups)}
}

// Reconcile compares a job's groups with its existing allocations and says
// what to place, stop and leave alone. It is a pure function of its input.
//
// Rules: a stopped or purged job stops every live alloc; allocs of a removed
// group stop; live allocs on tainted nodes are stopped as lost and replaced,
// except on a disconnected node within the group's disconnect window
// (disconnect.go): they become unknown and are replaced (or not,
// per disconnect.replace), and when the node returns the group's reconcile
// strategy keeps either the original or its replacement;
// a group over its count stops its highest indexes first; a group under its
// count places the missing indexes, reusing the indexes of the allocs they
// replace, then the lowest free ones. A live alloc whose group's tasks
// changed since it was placed is stopped and placed again at its index (a
// destructive update, all at once: there is no update block yet). Terminal
// allocs are history: a service group replaces them, a batch group replaces
// failed or lost ones but counts a successfully completed alloc toward its
// count. A failed alloc is replaced only as its group's reschedule policy
// allows (see reschedule.go): until its delay has passed, or for good when
// the policy does not allow it, it counts toward the count in place of its
// replacement.
func Reconcile(in Input) Result {
	res := Result{DesiredTGUpdates: map[string]*structs.DesiredUpdates{}}
	byGroup := map[string][]*structs.Allocation{}
	for _, a := range in.Allocs {
		byGroup[a.TaskGroup] = append(byGroup[a.TaskGroup], a)
	}
	batch := in.Job != nil && in.Job.Type == structs.JobTypeBatch
	var later []delayed
	deploy := newDeployCtx(in, &res)
	if !in.Job.Stopped() {
		superseded := supersededAllocs(in.Allocs)
		for _, tg := range in.Job.TaskGroups {
			g := groupReconciler{
				job: in.Job, tg: tg, batch: batch, tainted: in.TaintedNodes, res: &res,
				now: in.Now, evalID: in.EvalID, superseded: superseded,
				deploy: deploy, hadVersion: hasVersion(byGroup[tg.Name], in.Job),
				inPlaceFits: in.InPlaceFits,
			}
			g.reconcile(byGroup[tg.Name])
			later = append(later, g.later...)
			delete(byGroup, tg.Name)
		}
	}
	res.Followups = batchFollowups(later)
	desc := allocGroupRemoved
	if in.Job.Stopped() {
		desc = allocJobStopped
	}
	for _, name := range sortedKeys(byGroup) {
		u := res.updates(name)
		for _, a := range byGroup[name] {
			if isLive(a) {
				res.Stop = append(res.Stop, Stop{Alloc: a, Description: desc, ClientStatus: lostStatus(a, in.TaintedNodes)})
				u.Stop++
			}
		}
	}
	return res
}

func (r *Result) updates(group string) *structs.DesiredUpdates {
	u := r.DesiredTGUpdates[group]
	if u == nil {
		u = &structs.DesiredUpdates{}
		r.DesiredTGUpdates[group] = u
	}
	return u
}

// groupReconciler holds one group's working sets while it is reconciled.
type groupReconciler struct {
	job     *structs.Job
	tg      *structs.TaskGroup
	batch   bool
	tainted map[string]*structs.Node
	res     *Result

	now        time.Time
	evalID     string
	superseded map[string]bool // IDs of failed allocs already replaced

	keep     []*structs.Allocation        // live, (batch) completed or failed-waiting: count toward Count
	later    []delayed                    // failed allocs in keep that need a follow-up eval
	replaced map[uint]*structs.Allocation // newest alloc to replace, by index
	updated  map[uint]bool                // indexes replaced by a destructive update

	deploy     *deployCtx            // nil: no deployments (not a service job)
	hadVersion bool                  // an alloc ran the job's version
	inplace    []*structs.Allocation // live allocs updated in place (count toward Count)
	canaries   []*structs.Allocation // live unpromoted canaries (beside Count)

	inPlaceFits func(*structs.Allocation, *structs.TaskGroup) bool // Input.InPlaceFits
}

func (g *groupReconciler) reconcile(allocs []*structs.Allocation) {
	u := g.res.updates(g.tg.Name)
	g.replaced = map[uint]*structs.Allocation{}
	for _, a := range allocs {
		switch {
		case isLive(a) && isTainted(a, g.tainted) && g.disconnected(a, u):
			// Unknown until its node returns or its window passes.
		case isLive(a) && isTainted(a, g.tainted):
			g.res.Stop = append(g.res.Stop, Stop{Alloc: a, Description: allocLost, ClientStatus: structs.AllocClientStatusLost})
			u.Stop++
			g.markReplaced(a)
		case shouldMigrate(a):
			g.migrate(a, u)
		case g.deploy != nil && isUnpromotedCanary(a, g.deploy.d):
			g.canaries = append(g.canaries, a)
		case isLive(a):
			g.keep = append(g.keep, a)
		case a.DesiredStatus == structs.AllocDesiredStatusEvict:
			// Preempted: replace it, a batch alloc too even when its
			// client reports it complete (Nomad does not: its #9890).
			g.markReplaced(a)
		case g.batch && a.ClientStatus == structs.AllocClientStatusComplete:
			g.keep = append(g.keep, a)
		case a.DesiredStatus == structs.AllocDesiredStatusRun && a.ClientStatus == structs.AllocClientStatusFailed:
			g.failed(a, u)
		case a.DesiredStatus == structs.AllocDesiredStatusRun:
			// Terminal by the client's report (lost, or a service
			// that exited): replace it.
			g.markReplaced(a)
		}
	}
	g.stopReconnected(u)
	g.stopExcess(u)
	g.updateChanged(u)
	g.keepLater(u)
	u.Ignore += uint64(len(g.keep) + len(g.canaries))
	g.res.Ignore = append(g.res.Ignore, g.keep...)
	g.res.Ignore = append(g.res.Ignore, g.canaries...)
	g.placeMissing(u)
}

func (g *groupReconciler) markReplaced(a *structs.Allocation) {
	i := a.Index()
	if old := g.replaced[i]; old == nil || a.CreateIndex > old.CreateIndex {
		g.replaced[i] = a
	}
}

// stopExcess trims keep to the group count: duplicated names first, then the
// highest indexes. Completed batch allocs are never stopped.
func (g *groupReconciler) stopExcess(u *structs.DesiredUpdates) {
	sort.SliceStable(g.keep, func(i, j int) bool {
		ai, aj := g.keep[i].Index(), g.keep[j].Index()
		if ai != aj {
			return ai < aj
		}
		if ci, cj := g.current(g.keep[i]), g.current(g.keep[j]); ci != cj {
			return ci // a promoted canary wins over the alloc it replaces
		}
		return g.keep[i].CreateIndex < g.keep[j].CreateIndex
	})
	seen := map[uint]bool{}
	var kept, extra []*structs.Allocation
	for _, a := range g.keep {
		if seen[a.Index()] && isLive(a) {
			extra = append(extra, a)
			continue
		}
		seen[a.Index()] = true
		kept = append(kept, a)
	}
	for _, a := range extra {
		g.stop(a, allocDuplicateName, u)
	}
	for i := len(kept) - 1; i >= 0 && len(kept) > g.tg.Count; i-- {
		if isLive(kept[i]) || isFailedRun(kept[i]) {
			g.stop(kept[i], allocScaledDown, u)
			kept = append(kept[:i], kept[i+1:]...)
		}
	}
	g.keep = kept
}

func (g *groupReconciler) stop(a *structs.Allocation, desc string, u *structs.DesiredUpdates) {
	g.res.Stop = append(g.res.Stop, Stop{Alloc: a, Description: desc})
	u.Stop++
}

// placeMissing places count-len(keep) allocs: first at the indexes of the
// allocs they replace, then at the lowest free indexes.
func (g *groupReconciler) placeMissing(u *structs.DesiredUpdates) {
	missing := g.tg.Count - len(g.keep) - len(g.inplace)
	if missing <= 0 {
		return
	}
	used := make(map[uint]bool, len(g.keep)+len(g.inplace))
	for _, a := range append(g.inplace, g.keep...) {
		used[a.Index()] = true
	}
	var places []Placement
	// Destructive updates first: their old allocs are stopped in any case.
	replaced := sortedIndexes(g.replaced)
	sort.SliceStable(replaced, func(i, j int) bool { return g.updated[replaced[i]] && !g.updated[replaced[j]] })
	for _, i := range replaced {
		if len(places) == missing {
			break
		}
		if used[i] {
			continue
		}
		used[i] = true
		places = append(places, g.placement(i, g.replaced[i]))
	}
	for i := uint(0); len(places) < missing; i++ {
		if !used[i] {
			used[i] = true
			places = append(places, g.placement(i, nil))
		}
	}
	sort.Slice(places, func(i, j int) bool { return places[i].Index < places[j].Index })
	for _, p := range places {
		if !p.Destructive && !isMigration(p) {
			u.Place++
		}
		if p.Reschedule {
			u.RescheduleNow++
		}
	}
	g.res.Place = append(g.res.Place, places...)
}

func (g *groupReconciler) placement(i uint, prev *structs.Allocation) Placement {
	return Placement{
		TaskGroup: g.tg, Index: i, Previous: prev, Name: structs.AllocName(g.job.ID, g.tg.Name, i), Destructive: g.updated[i],
		Reschedule: prev != nil && !g.updated[i] && isFailedRun(prev),
	}
}
