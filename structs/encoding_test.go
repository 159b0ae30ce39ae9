package structs

import (
	"reflect"
	"testing"
	"time"
)

func TestCopyRoundTrip(t *testing.T) {
	j := &Job{ID: "example", Type: JobTypeBatch, TaskGroups: []*TaskGroup{{
		Name: "g", Count: 2,
		Tasks: []*Task{{Name: "t", Driver: "raw_exec", KillTimeout: 3 * time.Second,
			Config: map[string]any{"command": "/bin/echo", "args": []any{"a", "b"}, "nested": []any{map[string]any{"k": int64(1)}}}}},
	}}}
	j.Canonicalize()
	c := j.Copy()
	if !reflect.DeepEqual(j, c) {
		t.Fatalf("copy differs:\n%#v\n%#v", j.TaskGroups[0].Tasks[0], c.TaskGroups[0].Tasks[0])
	}
	now := time.Now().Round(0)
	a := &Allocation{ID: "a", TaskStates: map[string]*TaskState{"t": {State: TaskStateRunning, StartedAt: now}}}
	ac := a.Copy()
	if !ac.TaskStates["t"].StartedAt.Equal(now) {
		t.Fatalf("time lost: %v vs %v", ac.TaskStates["t"].StartedAt, now)
	}
}

func TestEncodeDecode(t *testing.T) {
	buf, err := Encode(JobRegisterRequestType, &JobRegisterRequest{Job: &Job{ID: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if MessageType(buf[0]) != JobRegisterRequestType {
		t.Fatalf("type byte %d", buf[0])
	}
	var out JobRegisterRequest
	if err := Decode(buf[1:], &out); err != nil || out.Job.ID != "x" {
		t.Fatalf("decode: %v %+v", err, out)
	}
}

func TestDecodeRPCError(t *testing.T) {
	err := DecodeRPCError(ErrJobNotFound.Error())
	if code, msg := ErrorCode(err); code != 404 || msg != "job not found" {
		t.Fatalf("got %d %q", code, msg)
	}
	if code, _ := ErrorCode(DecodeRPCError("plain failure")); code != 500 {
		t.Fatalf("plain error code %d", code)
	}
}

// A raft entry holds no unused room: the log cache keeps entries' bytes.
func TestEncodeLeavesNoSlack(t *testing.T) {
	req := &ApplyPlanResultsRequest{}
	for i := range 2000 {
		req.AllocsPlaced = append(req.AllocsPlaced, &Allocation{ID: GenerateUUID(), Name: AllocName("j", "g", uint(i))})
	}
	buf, err := Encode(ApplyPlanResultsRequestType, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(buf) < 100_000 || cap(buf) > len(buf)+len(buf)/16 {
		t.Fatalf("entry of %d bytes has capacity %d", len(buf), cap(buf))
	}
	var out ApplyPlanResultsRequest
	if err := Decode(buf[1:], &out); err != nil || len(out.AllocsPlaced) != 2000 || out.AllocsPlaced[7].ID != req.AllocsPlaced[7].ID {
		t.Fatalf("decode: %v", err)
	}
}
