package agent

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/server/events"
	"github.com/nomadish/nomadish/structs"
)

// TestEventStreamFramesAndErrorFrame reads the stream of an in-memory
// buffer: the replayed frame, a frame published while streaming, a write
// without a kept event sending nothing, and the {"Error":...} frame that
// ends a stream the buffer stopped.
func TestEventStreamFramesAndErrorFrame(t *testing.T) {
	b := events.New(4)
	job := &structs.Job{ID: "web", Namespace: "default"}
	b.Publish(3, []structs.Event{{Topic: structs.TopicJob, Type: structs.TypeJobRegistered, Key: "web",
		Namespace: "default", Index: 3, Payload: &structs.JobEvent{Job: job}}})
	ts := httptest.NewServer(newHTTPServer(httpDeps{RPC: newFakeRPC(), Events: b}))
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/v1/event/stream?topic=Job:web&index=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	lines := bufio.NewReader(resp.Body)
	frame := func() map[string]any {
		t.Helper()
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("reading a frame: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("frame %q: %v", line, err)
		}
		return m
	}
	if f := frame(); f["Index"] != float64(3) || !strings.Contains(mustJSON(t, f), `"Payload":{"Job":{`) {
		t.Fatalf("first frame %v", f)
	}
	b.Publish(4, []structs.Event{{Topic: structs.TopicJob, Type: structs.TypeJobRegistered, Key: "other", Namespace: "default", Index: 4}})
	b.Publish(5, []structs.Event{{Topic: structs.TopicJob, Type: structs.TypeJobDeregistered, Key: "web", Namespace: "default", Index: 5,
		Payload: &structs.JobEvent{Job: job}}})
	if f := frame(); f["Index"] != float64(5) {
		t.Fatalf("second frame %v, want index 5 (4 has no event for web)", f)
	}
	b.Close()
	if f := frame(); f["Error"] == nil || !strings.Contains(f["Error"].(string), "closed") {
		t.Fatalf("last frame %v, want an error", f)
	}
	if _, err := lines.ReadString('\n'); err == nil {
		t.Fatal("the stream went on after its error frame")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
