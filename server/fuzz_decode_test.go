package server

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

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
		if _, err := prepareJob(req.Job, req.Namespace); err != nil {
			if code, _ := structs.ErrorCode(err); code != structs.ErrCodeBadRequest {
				t.Fatalf("not a 400: %v", err)
			}
		}
	})
}
