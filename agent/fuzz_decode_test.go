package agent

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// FuzzJobRegisterBody: the HTTP job register path's decoding and checking
// (decodeBody, then prepareJob: the ID, path and namespace checks; the
// server's jobcheck.Prepare does the rest, FuzzJobRegisterRPC) answers any
// body with a job or an error, and never panics. Seeded with the issue's
// inputs: a null task group, a null task, null lists members elsewhere.
func FuzzJobRegisterBody(f *testing.F) {
	for _, seed := range []string{
		okJob,
		`{"Job": {"ID": "x", "TaskGroups": [null]}}`,
		`{"Job": {"ID": "x", "TaskGroups": [{"Name": "g", "Tasks": [null]}]}}`,
		`{"Job": {"ID": "x", "TaskGroups": [{"Name": "g", "Tasks": [{"Name": "t", "Driver": "raw_exec", "Resources": null, "Constraints": [null]}]}]}}`,
		`{"Job": {"ID": "x", "Affinities": [null], "Spreads": [{"Attribute": "a", "SpreadTarget": [null]}], "TaskGroups": [{"Name": "g", "Networks": [null], "Update": null, "Tasks": [{"Name": "t", "Driver": "raw_exec"}]}]}}`,
		`{"Job": {"ID": "x", "Type": "system", "Reschedule": null, "TaskGroups": [{"Name": "g", "ReschedulePolicy": null, "RestartPolicy": null, "EphemeralDisk": null, "Migrate": null, "Tasks": [{"Name": "t", "Driver": "raw_exec", "Resources": {"Networks": [null], "Devices": [null]}}]}]}}`,
		`{"Job": null}`,
		`{"Job": {"ID": "x", "TaskGroups": [{"Name": "g", "Count": -9223372036854775808, "Tasks": [{"Name": "t", "Driver": "raw_exec", "Resources": {"CPU": 9223372036854775807, "MemoryMB": 9223372036854775807}}]}]}}`,
		`[]`, `null`, `{"Job": {"ID": "x", "TaskGroups": {}}}`,
	} {
		f.Add(seed)
	}
	s := newHTTPServer(httpDeps{RPC: newFakeRPC()})
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest("PUT", "/v1/jobs", strings.NewReader(body))
		var b jobRegisterBody
		if err := decodeBody(req, &b); err != nil {
			if code, _ := structs.ErrorCode(err); code != structs.ErrCodeBadRequest {
				t.Fatalf("decode error not a 400: %v", err)
			}
			return
		}
		if err := s.prepareJob(b.Job, "", s.parseWrite(req)); err != nil {
			if code, _ := structs.ErrorCode(err); code != structs.ErrCodeBadRequest {
				t.Fatalf("prepare error not a 400: %v", err)
			}
		}
	})
}
