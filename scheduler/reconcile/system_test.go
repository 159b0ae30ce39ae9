package reconcile_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/scheduler/reconcile"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// sysAlloc is a live alloc of job's first group on node.
func sysAlloc(job *structs.Job, node string, create uint64) *structs.Allocation {
	tg := job.TaskGroups[0]
	return &structs.Allocation{
		ID: fmt.Sprintf("%s-%d", node, create), Namespace: job.Namespace, JobID: job.ID, Job: job, TaskGroup: tg.Name,
		Name: structs.AllocName(job.ID, tg.Name, 0), NodeID: node, CreateIndex: create,
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
	}
}

// summary is the result as "place n1 n2 | stop id(desc) | ignore id".
func summary(r reconcile.SystemResult) string {
	var place, stop, ignore []string
	for _, p := range r.Place {
		place = append(place, p.Node.ID)
	}
	for _, s := range r.Stop {
		stop = append(stop, s.Alloc.ID+"("+s.Description+")")
	}
	for _, a := range r.Ignore {
		ignore = append(ignore, a.ID)
	}
	return fmt.Sprintf("place %s | stop %s | ignore %s", strings.Join(place, " "), strings.Join(stop, " "), strings.Join(ignore, " "))
}

func TestReconcileSystem(t *testing.T) {
	job := schedulertest.Job("logs", structs.JobTypeSystem, 1, 100, 100)
	n1, n2, n3 := schedulertest.Node("n1", "dc1", 4000, 4096), schedulertest.Node("n2", "dc1", 4000, 4096), schedulertest.Node("n3", "dc1", 4000, 4096)
	migrating := sysAlloc(job, "n3", 5)
	yes := true
	migrating.DesiredTransition.Migrate = &yes
	stopped := job.Copy()
	stopped.Stop = true
	for _, tc := range []struct {
		name string
		in   reconcile.SystemInput
		want string
	}{
		{"new job: one per target", reconcile.SystemInput{Job: job, Targets: []*structs.Node{n1, n2}},
			"place n1 n2 | stop  | ignore "},
		{"duplicate on a node: newest stops", reconcile.SystemInput{Job: job, Targets: []*structs.Node{n1},
			Allocs: []*structs.Allocation{sysAlloc(job, "n1", 3), sysAlloc(job, "n1", 2)}},
			"place  | stop n1-3(alloc not needed as its name is used by another alloc) | ignore n1-2"},
		{"kept node keeps its alloc unless marked for migration", reconcile.SystemInput{Job: job, Targets: []*structs.Node{n1},
			Kept: map[string]*structs.Node{"n2": n2, "n3": n3}, Allocs: []*structs.Allocation{sysAlloc(job, "n2", 4), migrating}},
			"place n1 | stop n3-5(alloc is being migrated) | ignore n2-4"},
		{"node no longer targeted", reconcile.SystemInput{Job: job, Allocs: []*structs.Allocation{sysAlloc(job, "n1", 2)}},
			"place  | stop n1-2(alloc not needed as node is no longer targeted by the job) | ignore "},
		{"tainted node: lost, not replaced", reconcile.SystemInput{Job: job, Targets: []*structs.Node{n2},
			TaintedNodes: map[string]*structs.Node{"n1": nil}, Allocs: []*structs.Allocation{sysAlloc(job, "n1", 2)}},
			"place n2 | stop n1-2(alloc is lost since its node is down) | ignore "},
		{"stopped job", reconcile.SystemInput{Job: stopped, Targets: []*structs.Node{n1}, Allocs: []*structs.Allocation{sysAlloc(job, "n1", 2)}},
			"place  | stop n1-2(alloc not needed since job was stopped) | ignore "},
		{"purged job", reconcile.SystemInput{Allocs: []*structs.Allocation{sysAlloc(job, "n1", 2)}},
			"place  | stop n1-2(alloc not needed since job was stopped) | ignore "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := summary(reconcile.System(tc.in)); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
