package server

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

func register(t *testing.T, s *Server, job *structs.Job) *structs.JobRegisterResponse {
	t.Helper()
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &resp); err != nil {
		t.Fatal(err)
	}
	return &resp
}

func versions(t *testing.T, s *Server, id string, diffs bool) *structs.JobVersionsResponse {
	t.Helper()
	var resp structs.JobVersionsResponse
	if err := s.RPC(structs.JobGetJobVersionsRPC, &structs.JobVersionsRequest{JobID: id, Diffs: diffs}, &resp); err != nil {
		t.Fatal(err)
	}
	return &resp
}

func wantCode(t *testing.T, err error, code int, what string) {
	t.Helper()
	if got, msg := structs.ErrorCode(err); got != code {
		t.Fatalf("%s: code %d (%s), want %d", what, got, msg, code)
	}
}

// specOf strips what a registration sets, to compare user specs.
func specOf(j *structs.Job) *structs.Job {
	c := j.Copy()
	c.Status, c.StatusDescription, c.Stable, c.Version, c.SubmitTime = "", "", false, 0, 0
	c.CreateIndex, c.ModifyIndex, c.JobModifyIndex = 0, 0, 0
	return c
}

func TestJobVersionsRevertAndDiffs(t *testing.T) {
	s := testServer(t, nil)
	register(t, s, structstest.Job("web"))
	v1 := structstest.Job("web")
	v1.TaskGroups[0].Tasks[0].Resources.MemoryMB = 128
	register(t, s, v1)

	got := versions(t, s, "web", true)
	if len(got.Versions) != 2 || got.Versions[0].Version != 1 || got.Versions[1].Version != 0 {
		t.Fatalf("versions: %d", len(got.Versions))
	}
	if len(got.Diffs) != 1 || got.Diffs[0].Type != structs.DiffTypeEdited {
		t.Fatalf("diffs: %+v", got.Diffs)
	}
	task := got.Diffs[0].TaskGroups[0].Tasks[0]
	if len(task.Objects) != 1 || task.Objects[0].Name != "Resources" || task.Objects[0].Fields[0].New != "128" {
		t.Fatalf("task diff: %+v", task)
	}

	var resp structs.JobRegisterResponse
	err := s.RPC(structs.JobRevertRPC, &structs.JobRevertRequest{JobID: "web", JobVersion: 1}, &resp)
	wantCode(t, err, structs.ErrCodeBadRequest, "revert to current")
	err = s.RPC(structs.JobRevertRPC, &structs.JobRevertRequest{JobID: "web", JobVersion: 9}, &resp)
	wantCode(t, err, structs.ErrCodeNotFound, "revert to unknown version")
	wrong := uint64(0)
	err = s.RPC(structs.JobRevertRPC, &structs.JobRevertRequest{JobID: "web", JobVersion: 0, EnforcePriorVersion: &wrong}, &resp)
	wantCode(t, err, structs.ErrCodeConflict, "revert enforcing a wrong prior version")

	prior := uint64(1)
	if err := s.RPC(structs.JobRevertRPC, &structs.JobRevertRequest{JobID: "web", JobVersion: 0, EnforcePriorVersion: &prior}, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.EvalID == "" {
		t.Fatal("revert made no eval")
	}
	cur, _ := s.State().JobByID(nil, "default", "web")
	v0, _ := s.State().JobByIDAndVersion(nil, "default", "web", 0)
	if cur.Version != 2 || !reflect.DeepEqual(specOf(cur), specOf(v0)) {
		t.Fatalf("after revert: version %d, spec equal %v", cur.Version, reflect.DeepEqual(specOf(cur), specOf(v0)))
	}
}

func TestJobScale(t *testing.T) {
	s := testServer(t, nil)
	register(t, s, structstest.Job("web"))
	count := func(n int64) *int64 { return &n }
	var resp structs.JobRegisterResponse
	for name, tc := range map[string]struct {
		req  structs.JobScaleRequest
		code int
	}{
		"unknown group":  {structs.JobScaleRequest{JobID: "web", Target: map[string]string{"Group": "nope"}, Count: count(2)}, 400},
		"negative count": {structs.JobScaleRequest{JobID: "web", Target: map[string]string{"Group": "web"}, Count: count(-1)}, 400},
		"no group":       {structs.JobScaleRequest{JobID: "web", Count: count(2)}, 400},
		"unknown job":    {structs.JobScaleRequest{JobID: "nope", Target: map[string]string{"Group": "web"}, Count: count(2)}, 404},
		"stale index":    {structs.JobScaleRequest{JobID: "web", Target: map[string]string{"Group": "web"}, Count: count(2), JobModifyIndex: 1}, 409},
	} {
		err := s.RPC(structs.JobScaleRPC, &tc.req, &resp)
		wantCode(t, err, tc.code, name)
	}
	if cur, _ := s.State().JobByID(nil, "default", "web"); cur.Version != 0 {
		t.Fatalf("refused scales changed the job: version %d", cur.Version)
	}
	req := structs.JobScaleRequest{JobID: "web", Target: map[string]string{"Group": "web"}, Count: count(3)}
	if err := s.RPC(structs.JobScaleRPC, &req, &resp); err != nil {
		t.Fatal(err)
	}
	cur, _ := s.State().JobByID(nil, "default", "web")
	if cur.Version != 1 || cur.TaskGroups[0].Count != 3 || resp.EvalID == "" {
		t.Fatalf("after scale: version %d count %d eval %q", cur.Version, cur.TaskGroups[0].Count, resp.EvalID)
	}
	var status structs.JobScaleStatusResponse
	if err := s.RPC(structs.JobScaleStatusRPC, &structs.JobSpecificRequest{JobID: "web"}, &status); err != nil {
		t.Fatal(err)
	}
	if status.TaskGroups["web"].Desired != 3 || status.JobModifyIndex != cur.JobModifyIndex {
		t.Fatalf("scale status: %+v", status)
	}
}

func TestJobRegisterCheckIndexConflictChangesNothing(t *testing.T) {
	s := testServer(t, nil)
	first := register(t, s, structstest.Job("web"))
	changed := structstest.Job("web")
	changed.TaskGroups[0].Count = 2
	// The first eval is being scheduled meanwhile (the latest index moves):
	// what must not move is the job's spec, modify index and versions.
	before, _ := s.State().Index(state.TableJobVersions)
	for name, tc := range map[string]struct {
		index uint64
		msg   string
	}{
		"stale":         {first.JobModifyIndex + 100, "job exists with conflicting job modify index: "},
		"must be new":   {0, "job already exists"},
		"previous-1":    {first.JobModifyIndex - 1, "Enforcing job modify index"},
		"the new index": {first.JobModifyIndex + 1, "Enforcing job modify index"},
	} {
		var resp structs.JobRegisterResponse
		err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: changed, EnforceIndex: true, JobModifyIndex: tc.index}, &resp)
		wantCode(t, err, structs.ErrCodeConflict, name)
		if _, msg := structs.ErrorCode(err); !strings.HasPrefix(msg, "Enforcing job modify index") || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s: message %q", name, msg)
		}
	}
	if after, _ := s.State().Index(state.TableJobVersions); after != before {
		t.Fatalf("a refused registration wrote a version: index %d -> %d", before, after)
	}
	if cur, _ := s.State().JobByID(nil, "default", "web"); cur.JobModifyIndex != first.JobModifyIndex || cur.TaskGroups[0].Count != 1 {
		t.Fatalf("a refused registration changed the job: %+v", cur)
	}
	var resp structs.JobRegisterResponse
	err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("new"), EnforceIndex: true, JobModifyIndex: 5}, &resp)
	wantCode(t, err, structs.ErrCodeConflict, "index on a job that does not exist")
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: changed, EnforceIndex: true, JobModifyIndex: first.JobModifyIndex}, &resp); err != nil {
		t.Fatalf("matching index refused: %v", err)
	}
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("new"), EnforceIndex: true}, &resp); err != nil {
		t.Fatalf("index 0 for a new job refused: %v", err)
	}
}

func TestJobStopIsAVersionAndPurgeDropsVersions(t *testing.T) {
	s := testServer(t, nil)
	register(t, s, structstest.Job("web"))
	var dr structs.JobDeregisterResponse
	if err := s.RPC(structs.JobDeregisterRPC, &structs.JobDeregisterRequest{JobID: "web"}, &dr); err != nil {
		t.Fatal(err)
	}
	got := versions(t, s, "web", false)
	if len(got.Versions) != 2 || !got.Versions[0].Stop || got.Versions[1].Stop {
		t.Fatalf("after stop: %d versions", len(got.Versions))
	}
	var stable structs.JobStabilityResponse
	if err := s.RPC(structs.JobStableRPC, &structs.JobStabilityRequest{JobID: "web", JobVersion: 0, Stable: true}, &stable); err != nil {
		t.Fatal(err)
	}
	if v0, _ := s.State().JobByIDAndVersion(nil, "default", "web", 0); !v0.Stable {
		t.Fatal("version 0 not stable")
	}
	if err := s.RPC(structs.JobDeregisterRPC, &structs.JobDeregisterRequest{JobID: "web", Purge: true}, &dr); err != nil {
		t.Fatal(err)
	}
	if got := versions(t, s, "web", false); len(got.Versions) != 0 {
		t.Fatalf("after purge: %d versions", len(got.Versions))
	}
}

func TestJobPlanDiffAnnotated(t *testing.T) {
	s := testServer(t, nil)
	register(t, s, structstest.Job("web"))
	changed := structstest.Job("web")
	changed.TaskGroups[0].Count = 3
	changed.TaskGroups[0].Tasks[0].Config["args"] = []any{"20"}
	var resp structs.JobPlanResponse
	if err := s.RPC(structs.JobPlanRPC, &structs.JobPlanRequest{Job: changed, Diff: true}, &resp); err != nil {
		t.Fatal(err)
	}
	tg := resp.Diff.TaskGroups[0]
	if resp.Diff.Type != structs.DiffTypeEdited || tg.Type != structs.DiffTypeEdited {
		t.Fatalf("diff %+v", resp.Diff)
	}
	if len(tg.Fields) != 1 || tg.Fields[0].Name != "Count" || !reflect.DeepEqual(tg.Fields[0].Annotations, []string{"forces create"}) {
		t.Fatalf("group fields %+v", tg.Fields[0])
	}
	if a := tg.Tasks[0].Annotations; !reflect.DeepEqual(a, []string{"forces create/destroy update"}) {
		t.Fatalf("task annotations %v", a)
	}
	if resp.JobModifyIndex == 0 {
		t.Fatal("no job modify index")
	}
}
