package server

import (
	"reflect"
	"testing"

	"github.com/nomadish/nomadish/server/endpoints"
	"github.com/nomadish/nomadish/structs"
)

// TestJobDeregisterEntryWire: the entry Job.Deregister commits
// (endpoints.JobDeregisterEntry) decodes into the FSM's own type with
// every field intact.
func TestJobDeregisterEntryWire(t *testing.T) {
	in := &endpoints.JobDeregisterEntry{Job: mockJob("web")}
	in.JobID, in.Purge, in.Namespace = "web", true, "prod"
	in.Eval = &structs.Evaluation{ID: "e1", JobID: "web"}
	buf, err := structs.Encode(structs.JobDeregisterRequestType, in)
	if err != nil {
		t.Fatal(err)
	}
	var out jobDeregisterEntry
	if err := structs.Decode(buf[1:], &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out.JobDeregisterRequest, in.JobDeregisterRequest) || out.Job.ID != "web" {
		t.Fatalf("decoded %+v, want %+v", out, in)
	}
}
