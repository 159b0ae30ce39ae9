package endpoints

import (
	"reflect"
	"testing"

	"github.com/nomadish/nomadish/internal/niltest"
	"github.com/nomadish/nomadish/structs"
)

// mockJob is a valid one-group service job.
func mockJob(id string) *structs.Job {
	return &structs.Job{ID: id, Type: structs.JobTypeService, Datacenters: []string{"dc1"},
		TaskGroups: []*structs.TaskGroup{{Name: "web", Count: 1, Tasks: []*structs.Task{{
			Name: "t", Driver: "raw_exec", Config: map[string]any{"command": "/bin/sleep", "args": []any{"10"}},
			Resources: &structs.Resources{CPU: 100, MemoryMB: 64},
		}}}}}
}

// TestJobNilAtEverySite: the class of the nil task group finding. A job
// with every member present is made nil at each pointer in turn (fields,
// list elements, map values); the Job.Register and Job.Plan checks
// (CheckDecoded, then prepareJob: copy, Canonicalize, Validate) answer
// each with a job or a 400, never a panic.
func TestJobNilAtEverySite(t *testing.T) {
	sites := 0
	for n := 0; ; n++ {
		req := &structs.JobRegisterRequest{}
		niltest.Fill(reflect.ValueOf(&req.Job).Elem())
		k := n
		path := niltest.Site(reflect.ValueOf(req).Elem(), &k)
		if path == "" {
			break
		}
		sites++
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("nil at %s: panic: %v", path, p)
				}
			}()
			if err := structs.CheckDecoded(req); err != nil {
				return
			}
			if _, err := prepareJob(req.Job, req.Namespace, nil); err != nil {
				if code, _ := structs.ErrorCode(err); code != structs.ErrCodeBadRequest {
					t.Errorf("nil at %s: %v", path, err)
				}
			}
		}()
	}
	if sites < 20 {
		t.Fatalf("only %d nil sites tried", sites)
	}
	t.Logf("%d nil sites tried", sites)
}

// FuzzJobRegisterRPC: the RPC path of Job.Register, from the msgpack a
// TCP caller sends to the checked job (CheckDecoded at dispatch, then
// prepareJob: Copy, Canonicalize, Validate), answers bytes with a job or a
// 400, never a panic.
func FuzzJobRegisterRPC(f *testing.F) {
	nilGroup := mockJob("j")
	nilGroup.TaskGroups = []*structs.TaskGroup{nil}
	nilTask := mockJob("t")
	nilTask.TaskGroups[0].Tasks = append(nilTask.TaskGroups[0].Tasks, nil)
	for _, j := range []*structs.Job{mockJob("ok"), nilGroup, nilTask, {ID: "empty"}} {
		buf, err := structs.Encode(0, &structs.JobRegisterRequest{Job: j})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(buf[1:])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var req structs.JobRegisterRequest
		if structs.Decode(data, &req) != nil {
			return
		}
		if err := structs.CheckDecoded(&req); err != nil {
			return
		}
		if _, err := prepareJob(req.Job, req.Namespace, nil); err != nil {
			if code, _ := structs.ErrorCode(err); code != structs.ErrCodeBadRequest {
				t.Fatalf("not a 400: %v", err)
			}
		}
	})
}
