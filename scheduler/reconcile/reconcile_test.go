package reconcile

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func testJob(typ string, count int) *structs.Job {
	j := &structs.Job{ID: "j", Type: typ, TaskGroups: []*structs.TaskGroup{{
		Name: "g", Count: count, Tasks: []*structs.Task{{Name: "t", Driver: "mock"}},
	}}}
	j.Canonicalize()
	return j
}

// alloc builds "j.g[idx]" on node with client status cs ("" = running) and
// desired status run, or stop when cs starts with "stop/".
func alloc(idx uint, node, cs string, create uint64) *structs.Allocation {
	ds := structs.AllocDesiredStatusRun
	if rest, ok := strings.CutPrefix(cs, "stop/"); ok {
		ds, cs = structs.AllocDesiredStatusStop, rest
	}
	if cs == "" {
		cs = structs.AllocClientStatusRunning
	}
	return &structs.Allocation{
		ID: fmt.Sprintf("a%d-%d", idx, create), Name: structs.AllocName("j", "g", idx), JobID: "j", TaskGroup: "g",
		NodeID: node, DesiredStatus: ds, ClientStatus: cs, CreateIndex: create,
	}
}

// summary renders a result as "place 1(a1-1) 3; stop 4:lost; ignore 0 2".
func summary(r Result) string {
	var place, stop, ignore []string
	for _, p := range r.Place {
		s := fmt.Sprint(p.Index)
		if p.Previous != nil {
			s += "(" + p.Previous.ID + ")"
		}
		place = append(place, s)
	}
	for _, s := range r.Stop {
		x := fmt.Sprint(s.Alloc.Index())
		if s.ClientStatus != "" {
			x += ":" + s.ClientStatus
		}
		stop = append(stop, x)
	}
	for _, a := range r.Ignore {
		ignore = append(ignore, fmt.Sprint(a.Index()))
	}
	sort.Strings(stop)
	sort.Strings(ignore)
	return fmt.Sprintf("place %s; stop %s; ignore %s", strings.Join(place, " "), strings.Join(stop, " "), strings.Join(ignore, " "))
}

func TestReconcile(t *testing.T) {
	down := map[string]*structs.Node{"dead": {ID: "dead", Status: structs.NodeStatusDown}}
	stopped := testJob(structs.JobTypeService, 3)
	stopped.Stop = true
	renamed := testJob(structs.JobTypeService, 1)
	renamed.TaskGroups[0].Name = "h"
	cases := []struct {
		name    string
		job     *structs.Job
		allocs  []*structs.Allocation
		tainted map[string]*structs.Node
		want    string
	}{
		{"empty", testJob("service", 3), nil, nil, "place 0 1 2; stop ; ignore "},
		{"scale up fills holes", testJob("service", 4),
			[]*structs.Allocation{alloc(0, "n", "", 1), alloc(2, "n", "", 2)}, nil, "place 1 3; stop ; ignore 0 2"},
		{"scale down stops highest", testJob("service", 2),
			[]*structs.Allocation{alloc(0, "n", "", 1), alloc(1, "n", "", 1), alloc(2, "n", "", 1), alloc(3, "n", "", 1)}, nil,
			"place ; stop 2 3; ignore 0 1"},
		{"duplicate name stopped", testJob("service", 2),
			[]*structs.Allocation{alloc(0, "n", "", 1), alloc(0, "n", "", 2)}, nil, "place 1; stop 0; ignore 0"},
		{"job stopped", stopped,
			[]*structs.Allocation{alloc(0, "n", "", 1), alloc(1, "n", "complete", 1), alloc(2, "dead", "", 1)}, down,
			"place ; stop 0 2:lost; ignore "},
		{"job purged", nil, []*structs.Allocation{alloc(0, "n", "", 1), alloc(1, "n", "stop/running", 1)}, nil, "place ; stop 0; ignore "},
		{"group removed", renamed, []*structs.Allocation{alloc(0, "n", "", 1)}, nil, "place 0; stop 0; ignore "},
		{"lost replaced at same index", testJob("service", 2),
			[]*structs.Allocation{alloc(0, "dead", "", 1), alloc(1, "n", "", 1)}, down, "place 0(a0-1); stop 0:lost; ignore 1"},
		{"service terminal replaced", testJob("service", 2),
			[]*structs.Allocation{alloc(0, "n", "complete", 1), alloc(1, "n", "failed", 1)}, nil, "place 0(a0-1) 1(a1-1); stop ; ignore "},
		{"batch complete kept, failed replaced", testJob("batch", 2),
			[]*structs.Allocation{alloc(0, "n", "complete", 1), alloc(1, "n", "failed", 1)}, nil, "place 1(a1-1); stop ; ignore 0"},
		{"batch complete over count not stopped", testJob("batch", 1),
			[]*structs.Allocation{alloc(0, "n", "complete", 1), alloc(1, "n", "complete", 1), alloc(2, "n", "", 1)}, nil,
			"place ; stop 2; ignore 0 1"},
		{"newest failure is the previous", testJob("batch", 1),
			[]*structs.Allocation{alloc(0, "n", "failed", 1), alloc(0, "n", "failed", 5), alloc(0, "n", "failed", 3)}, nil,
			"place 0(a0-5); stop ; ignore "},
		{"replacement already running", testJob("service", 1),
			[]*structs.Allocation{alloc(0, "n", "failed", 1), alloc(0, "n", "", 2)}, nil, "place ; stop ; ignore 0"},
		{"stopped allocs are history", testJob("service", 1),
			[]*structs.Allocation{alloc(0, "n", "stop/complete", 1), alloc(1, "n", "stop/running", 1)}, nil, "place 0; stop ; ignore "},
	}
	cases = append(cases, updateCases()...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Failed allocs failed at ModifyTime 0 (1970), long enough
			// ago for any default reschedule delay.
			got := Reconcile(Input{Job: c.job, Allocs: c.allocs, TaintedNodes: c.tainted, Now: time.Unix(0, 0).Add(time.Hour)})
			if s := summary(got); s != c.want {
				t.Errorf("got  %s\nwant %s", s, c.want)
			}
			var place, stop, ignore uint64
			for _, u := range got.DesiredTGUpdates {
				place, stop, ignore = place+u.Place+u.DestructiveUpdate, stop+u.Stop+u.DestructiveUpdate, ignore+u.Ignore
			}
			if int(place) != len(got.Place) || int(stop) != len(got.Stop) || int(ignore) != len(got.Ignore) {
				t.Errorf("DesiredTGUpdates %d/%d/%d do not match lists %d/%d/%d", place, stop, ignore, len(got.Place), len(got.Stop), len(got.Ignore))
			}
		})
	}
}

// updateCases cover destructive updates: allocs placed with an older job
// version whose group's tasks differ.
func updateCases() []struct {
	name    string
	job     *structs.Job
	allocs  []*structs.Allocation
	tainted map[string]*structs.Node
	want    string
} {
	v1 := testJob("service", 2)
	v1.JobModifyIndex = 1
	v2 := testJob("service", 2) // same tasks, new version (e.g. count or meta changed)
	v2.JobModifyIndex = 2
	v3 := testJob("service", 2)
	v3.JobModifyIndex = 3
	v3.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "v3"} // destructive (cpu alone may update in place)
	with := func(a *structs.Allocation, j *structs.Job) *structs.Allocation { a.Job = j; return a }
	return []struct {
		name    string
		job     *structs.Job
		allocs  []*structs.Allocation
		tainted map[string]*structs.Node
		want    string
	}{
		{"same tasks new version: updated in place", v2,
			[]*structs.Allocation{with(alloc(0, "n", "", 1), v1), with(alloc(1, "n", "", 1), v1)}, nil, "place ; stop ; ignore "},
		{"changed tasks: destructive update", v3,
			[]*structs.Allocation{with(alloc(0, "n", "", 1), v1), with(alloc(1, "n", "", 1), v3)}, nil, "place 0(a0-1); stop 0; ignore 1"},
		{"update before a lower failed index", v3,
			[]*structs.Allocation{with(alloc(0, "n", "failed", 1), v1), with(alloc(5, "n", "", 1), v1), with(alloc(6, "n", "", 1), v3)}, nil,
			"place 5(a5-1); stop 5; ignore 6"},
	}
}

func TestReconcileNames(t *testing.T) {
	got := Reconcile(Input{Job: testJob("service", 2)})
	if got.Place[0].Name != "j.g[0]" || got.Place[1].Name != "j.g[1]" {
		t.Fatalf("names %q %q", got.Place[0].Name, got.Place[1].Name)
	}
}
