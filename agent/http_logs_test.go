package agent

import (
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

const logsAllocID = "1b2c3d4e-0000-4000-8000-000000000001"

func logsServer(nodeOfAlloc string, logs *fakeLogs) (*httpServer, *fakeRPC) {
	job := testJob("web")
	f := newFakeRPC().on(structs.AllocGetAllocRPC, func(args, reply any) error {
		if args.(*structs.AllocSpecificRequest).AllocID == logsAllocID {
			reply.(*structs.SingleAllocResponse).Alloc = &structs.Allocation{
				ID: logsAllocID, NodeID: nodeOfAlloc, Job: job, TaskGroup: "g",
			}
		}
		return nil
	})
	d := httpDeps{RPC: f}
	if logs != nil {
		d.Logs = logs
	}
	return newHTTPServer(d), f
}

func TestLogsPlain(t *testing.T) {
	logs := &fakeLogs{nodeID: "n1", chunks: []string{"hello ", "world\n"}}
	s, _ := logsServer("n1", logs)
	rec := do(t, s, "GET", "/v1/client/fs/logs/"+logsAllocID+"?task=t&type=stderr&plain=true&follow=true&origin=end&offset=3", "")
	wantStatus(t, rec, 200, "")
	if rec.Body.String() != "hello world\n" {
		t.Fatalf("body = %q", rec.Body.String())
	}
	want := []any{logsAllocID, "t", "stderr", "end", int64(3), true}
	for i := range want {
		if logs.got[i] != want[i] {
			t.Fatalf("Logs got %v, want %v", logs.got, want)
		}
	}
	if !rec.Flushed {
		t.Fatal("plain logs were not flushed")
	}
}

func TestLogsFramed(t *testing.T) {
	big := strings.Repeat("x", maxFrameData+10)
	logs := &fakeLogs{nodeID: "n1", chunks: []string{"hi\n", big}}
	s, _ := logsServer("n1", logs)
	rec := do(t, s, "GET", "/v1/client/fs/logs/"+logsAllocID+"?task=t&type=stdout&offset=5", "")
	wantStatus(t, rec, 200, "")
	dec := json.NewDecoder(rec.Body)
	var data strings.Builder
	var offsets []int64
	for {
		var fr streamFrame
		if err := dec.Decode(&fr); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		data.Write(fr.Data)
		offsets = append(offsets, fr.Offset)
		if fr.File != "alloc/logs/t.stdout" {
			t.Fatalf("frame file = %q", fr.File)
		}
	}
	if data.String() != "hi\n"+big {
		t.Fatalf("reassembled %d bytes, want %d", data.Len(), len(big)+3)
	}
	want := []int64{8, 8 + maxFrameData, 8 + maxFrameData + 10}
	if len(offsets) != 3 || offsets[0] != want[0] || offsets[1] != want[1] || offsets[2] != want[2] {
		t.Fatalf("offsets = %v, want %v", offsets, want)
	}
}

func TestLogsErrors(t *testing.T) {
	path := "/v1/client/fs/logs/" + logsAllocID
	cases := []struct {
		name, node, url string
		logs            *fakeLogs
		code            int
		msg             string
	}{
		{"no task", "n1", path + "?type=stdout", &fakeLogs{nodeID: "n1"}, 400, "task name"},
		{"bad type", "n1", path + "?task=t&type=stdlog", &fakeLogs{nodeID: "n1"}, 400, "log type"},
		{"bad origin", "n1", path + "?task=t&type=stdout&origin=middle", &fakeLogs{nodeID: "n1"}, 400, "origin"},
		{"bad offset", "n1", path + "?task=t&type=stdout&offset=-4", &fakeLogs{nodeID: "n1"}, 400, "offset"},
		{"unknown task", "n1", path + "?task=nope&type=stdout", &fakeLogs{nodeID: "n1"}, 400, "unknown task"},
		{"unknown alloc", "n1", "/v1/client/fs/logs/nope?task=t&type=stdout", &fakeLogs{nodeID: "n1"}, 404, "alloc not found"},
		{"other node", "n2", path + "?task=t&type=stdout", &fakeLogs{nodeID: "n1"}, 501, "not on this agent's client"},
		{"no client", "n1", path + "?task=t&type=stdout", nil, 501, "not on this agent's client"},
		{"client error", "n1", path + "?task=t&type=stdout",
			&fakeLogs{nodeID: "n1", err: structs.NewCodedError(404, "no log file yet")}, 404, "no log file yet"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := logsServer(tc.node, tc.logs)
			wantStatus(t, do(t, s, "GET", tc.url, ""), tc.code, tc.msg)
		})
	}
}

func TestLogsErrorAfterDataKeepsStatus(t *testing.T) {
	logs := &fakeLogs{nodeID: "n1", chunks: []string{"part"}, err: errors.New("read failed")}
	s, _ := logsServer("n1", logs)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/client/fs/logs/"+logsAllocID+"?task=t&type=stdout&plain=true", nil))
	if rec.Code != 200 || rec.Body.String() != "part" {
		t.Fatalf("status %d body %q", rec.Code, rec.Body.String())
	}
}

func TestLogsEmpty(t *testing.T) {
	s, _ := logsServer("n1", &fakeLogs{nodeID: "n1"})
	wantStatus(t, do(t, s, "GET", "/v1/client/fs/logs/"+logsAllocID+"?task=t&type=stdout", ""), 200, "")
}
