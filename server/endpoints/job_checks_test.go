package endpoints

import (
	"reflect"
	"testing"

	"github.com/nomadish/nomadish/internal/niltest"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

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
	nilGroup := structstest.Job("j")
	nilGroup.TaskGroups = []*structs.TaskGroup{nil}
	nilTask := structstest.Job("t")
	nilTask.TaskGroups[0].Tasks = append(nilTask.TaskGroups[0].Tasks, nil)
	for _, j := range []*structs.Job{structstest.Job("ok"), nilGroup, nilTask, {ID: "empty"}} {
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
