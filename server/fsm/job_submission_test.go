package fsm

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// TestApplyJobRegisterWithSubmission: the source in a register entry is
// stored with the job's version; an entry written before the field existed
// (no Submission key) still applies, with no source.
func TestApplyJobRegisterWithSubmission(t *testing.T) {
	f := testFSM(t)
	job := structstest.Job("web")
	job.Canonicalize()
	sub := &structs.JobSubmission{Source: "job \"web\" {}\n", Format: "hcl2"}
	if r := applyMsg(t, f, 1, structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: job, Submission: sub}); r != nil {
		t.Fatalf("job register: %v", r)
	}
	got, err := f.State().JobSubmission(nil, "default", "web", 0)
	if err != nil || got == nil || got.Source != sub.Source || got.JobModifyIndex != 1 {
		t.Fatalf("stored submission %+v: %v", got, err)
	}

	// The shape of a register entry before Submission was added.
	type oldRegister struct {
		Job            *structs.Job
		EnforceIndex   bool
		JobModifyIndex uint64
		PolicyOverride bool
		Eval           *structs.Evaluation
		structs.WriteRequest
	}
	old := structstest.Job("old")
	old.Canonicalize()
	if r := applyMsg(t, f, 2, structs.JobRegisterRequestType, &oldRegister{Job: old}); r != nil {
		t.Fatalf("old-shape job register: %v", r)
	}
	if j, _ := f.State().JobByID(nil, "default", "old"); j == nil {
		t.Fatal("old-shape entry: job not stored")
	}
	if got, _ := f.State().JobSubmission(nil, "default", "old", 0); got != nil {
		t.Fatalf("old-shape entry stored a submission %+v", got)
	}
}
