package e2e

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

type versionedJob struct {
	ID             string
	Version        uint64
	JobModifyIndex uint64
	TaskGroups     []struct {
		Name  string
		Count int
		Tasks []struct {
			Config    map[string]any
			Resources struct{ MemoryMB int }
		}
	}
}

func readJob(t *testing.T, id string) versionedJob {
	t.Helper()
	var j versionedJob
	if err := getJSON(dev.addr+"/v1/job/"+id, &j); err != nil {
		t.Fatal(err)
	}
	return j
}

// TestJobVersionsHistoryRevertScaleCheckIndex runs a job, changes it,
// reads its history, reverts, scales, and is refused a stale -check-index.
func TestJobVersionsHistoryRevertScaleCheckIndex(t *testing.T) {
	id := uniqueID("e2e-versions")
	loop := []string{"-c", "while true; do sleep 0.1; done"}
	v0 := writeFile(t, "v0.nomad.hcl", rawExecJob(id, "service", "/bin/sh", loop, 32))
	v1 := writeFile(t, "v1.nomad.hcl", rawExecJob(id, "service", "/bin/sh", loop, 48))
	live := func() int {
		n := 0
		for _, a := range jobAllocs(t, id) {
			if a.DesiredStatus == "run" && a.ClientStatus == "running" {
				n++
			}
		}
		return n
	}
	defer nomadish(t, "job", "stop", "-purge", "-detach", id)

	if r := nomadish(t, "job", "run", v0); r.code != 0 {
		t.Fatalf("run v0: %v", r)
	}
	r := nomadish(t, "job", "plan", v1)
	if r.code != 1 || !strings.Contains(r.out, `+/- MemoryMB: "32" => "48"`) || !strings.Contains(r.out, "nomadish job run -check-index ") {
		t.Fatalf("plan v1: %v", r)
	}
	planIndex := regexp.MustCompile(`-check-index (\d+) `).FindStringSubmatch(r.out)[1]
	if r := nomadish(t, "job", "run", "-check-index", planIndex, v1); r.code != 0 {
		t.Fatalf("run v1 with the plan's check index: %v", r)
	}
	r = nomadish(t, "job", "history", id)
	if r.code != 0 || strings.Count(r.out, "Version     = ") != 2 || !strings.Contains(r.out, "Version     = 1") {
		t.Fatalf("history: %v", r)
	}
	if r := nomadish(t, "job", "history", "-p", id); r.code != 0 || !strings.Contains(r.out, `+/- MemoryMB: "32" => "48"`) {
		t.Fatalf("history -p: %v", r)
	}

	if r := nomadish(t, "job", "revert", id, "0"); r.code != 0 {
		t.Fatalf("revert: %v", r)
	}
	var versions struct{ Versions []versionedJob }
	if err := getJSON(dev.addr+"/v1/job/"+id+"/versions", &versions); err != nil {
		t.Fatal(err)
	}
	cur := readJob(t, id)
	oldest := versions.Versions[len(versions.Versions)-1]
	if cur.Version != 2 || oldest.Version != 0 || !reflect.DeepEqual(cur.TaskGroups, oldest.TaskGroups) {
		t.Fatalf("after revert: version %d, groups %+v; version 0 groups %+v", cur.Version, cur.TaskGroups, oldest.TaskGroups)
	}

	if r := nomadish(t, "job", "scale", id, "2"); r.code != 0 || !strings.Contains(r.out, "Monitoring evaluation") {
		t.Fatalf("scale: %v", r)
	}
	eventually(t, 30*time.Second, "two running allocations", func() (bool, string) {
		n := live()
		return n == 2, fmt.Sprintf("%d running", n)
	})

	before := readJob(t, id)
	stale := fmt.Sprint(before.JobModifyIndex - 1)
	r = nomadish(t, "job", "run", "-check-index", stale, v1)
	if r.code == 0 || !strings.Contains(r.errOut, "Enforcing job modify index "+stale) || !strings.Contains(r.errOut, "Job not updated") {
		t.Fatalf("stale check-index: %v", r)
	}
	if after := readJob(t, id); !reflect.DeepEqual(after, before) {
		t.Fatalf("a refused run changed the job: %+v -> %+v", before, after)
	}
	if r := nomadish(t, "job", "stop", "-purge", id); r.code != 0 {
		t.Fatalf("purge: %v", r)
	}
	if err := getJSON(dev.addr+"/v1/job/"+id+"/versions", &versions); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("versions after purge: %v", err)
	}
}
