package drainer

import (
	"sort"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// NodeInput is what Plan looks at for one draining node.
type NodeInput struct {
	Node *structs.Node
	// Allocs are every allocation on the node.
	Allocs []*structs.Allocation
	// Jobs are the jobs of those allocations (a purged job is absent).
	Jobs map[structs.NamespacedID]*structs.Job
	// JobAllocs are every allocation of those jobs, on any node: the
	// replacements whose health paces the migration.
	JobAllocs map[structs.NamespacedID][]*structs.Allocation
}

// NodeResult is Plan's decision for one node.
type NodeResult struct {
	// Migrate are the allocations to mark with DesiredTransition.Migrate,
	// ordered by job then name.
	Migrate []*structs.Allocation
	// Done says the node has no allocations left to drain.
	Done bool
	// Forced says the deadline has passed (everything left was marked).
	Forced bool
}

// Plan decides one round of a node's drain at now. Rules:
//   - past the deadline, every live allocation not yet marked is marked
//     (system ones too unless IgnoreSystemJobs);
//   - a service group marks up to migrate.max_parallel allocations at a
//     time: it may mark as many as its healthy allocations exceed
//     count - max_parallel, where healthy means live, not marked, and
//     reported healthy by its deployment or with every task running for
//     min_healthy_time (an unmarked alloc on a draining node still serves:
//     it counts, so nodes draining together share the group's budget, the
//     drainer seeing each node's marks before it plans the next);
//   - batch allocations are left to finish until the deadline;
//   - system allocations are marked last, once nothing else is live;
//   - the drain is done when no live allocation is left (system ones
//     excepted when ignored).
func Plan(in NodeInput, now time.Time) NodeResult {
	ds := in.Node.DrainStrategy
	if ds == nil {
		return NodeResult{}
	}
	ignoreSystem := ds.IgnoreSystemJobs
	forced := !ds.ForceDeadline.IsZero() && !now.Before(ds.ForceDeadline)
	res := NodeResult{Forced: forced}
	byJob := map[structs.NamespacedID][]*structs.Allocation{}
	remaining, remainingNonSystem := 0, 0
	for _, a := range in.Allocs {
		if a.TerminalStatus() {
			continue
		}
		system := isSystem(a, in.Jobs)
		if system && ignoreSystem {
			continue
		}
		remaining++
		if !system {
			remainingNonSystem++
		}
		if a.DesiredTransition.ShouldMigrate() {
			continue
		}
		key := structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}
		byJob[key] = append(byJob[key], a)
	}
	if remaining == 0 {
		res.Done = true
		return res
	}
	for _, key := range sortedJobs(byJob) {
		allocs := byJob[key]
		job := in.Jobs[key]
		switch {
		case forced || job == nil || job.Stopped():
			res.Migrate = append(res.Migrate, allocs...)
		case job.Type == structs.JobTypeSystem || job.Type == structs.JobTypeSysBatch:
			if remainingNonSystem == 0 {
				res.Migrate = append(res.Migrate, allocs...)
			}
		case job.Type == structs.JobTypeBatch:
			// left to finish until the deadline
		default:
			res.Migrate = append(res.Migrate, pace(job, allocs, in, now)...)
		}
	}
	sort.SliceStable(res.Migrate, func(i, j int) bool {
		a, b := res.Migrate[i], res.Migrate[j]
		if a.JobID != b.JobID {
			return a.JobID < b.JobID
		}
		return a.Name < b.Name
	})
	return res
}

// pace picks, per group, the allocations of a service job on the node that
// may be marked now under the group's migrate block.
func pace(job *structs.Job, onNode []*structs.Allocation, in NodeInput, now time.Time) []*structs.Allocation {
	byGroup := map[string][]*structs.Allocation{}
	for _, a := range onNode {
		byGroup[a.TaskGroup] = append(byGroup[a.TaskGroup], a)
	}
	var out []*structs.Allocation
	key := structs.NamespacedID{Namespace: job.Namespace, ID: job.ID}
	for _, name := range sortedKeys(byGroup) {
		allocs := byGroup[name]
		tg := job.LookupTaskGroup(name)
		if tg == nil {
			out = append(out, allocs...)
			continue
		}
		m := tg.Migrate
		if m == nil {
			m = structs.DefaultMigrateStrategy()
		}
		maxPar := max(m.MaxParallel, 1)
		healthy := 0
		for _, a := range in.JobAllocs[key] {
			if a.TaskGroup == name && countsHealthy(a, m, now) {
				healthy++
			}
		}
		n := min(healthy-(tg.Count-maxPar), len(allocs))
		if n <= 0 {
			continue
		}
		sort.SliceStable(allocs, func(i, j int) bool { return allocs[i].Name < allocs[j].Name })
		out = append(out, allocs[:n]...)
	}
	return out
}

// countsHealthy reports whether a is a healthy allocation of its group for
// pacing: live, not marked, and healthy.
func countsHealthy(a *structs.Allocation, m *structs.MigrateStrategy, now time.Time) bool {
	if a.TerminalStatus() || a.DesiredTransition.ShouldMigrate() {
		return false
	}
	return Healthy(a, m.MinHealthyTime, now)
}

// Healthy reports whether an allocation is healthy at now: reported healthy
// by its deployment, or running with every task running for at least
// minHealthy.
func Healthy(a *structs.Allocation, minHealthy time.Duration, now time.Time) bool {
	if a.DeploymentStatus.IsHealthy() {
		return true
	}
	if a.ClientStatus != structs.AllocClientStatusRunning || len(a.TaskStates) == 0 {
		return false
	}
	for _, ts := range a.TaskStates {
		if ts.State != structs.TaskStateRunning || ts.StartedAt.IsZero() || now.Sub(ts.StartedAt) < minHealthy {
			return false
		}
	}
	return true
}

func isSystem(a *structs.Allocation, jobs map[structs.NamespacedID]*structs.Job) bool {
	job := jobs[structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}]
	if job == nil {
		job = a.Job
	}
	return job != nil && (job.Type == structs.JobTypeSystem || job.Type == structs.JobTypeSysBatch)
}

func sortedJobs(m map[structs.NamespacedID][]*structs.Allocation) []structs.NamespacedID {
	keys := make([]structs.NamespacedID, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Namespace != keys[j].Namespace {
			return keys[i].Namespace < keys[j].Namespace
		}
		return keys[i].ID < keys[j].ID
	})
	return keys
}

func sortedKeys(m map[string][]*structs.Allocation) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
