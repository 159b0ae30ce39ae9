package cli

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// recordingAPI answers every request with handler and records each
// "METHOD path?query".
type recordingAPI struct {
	mu   sync.Mutex
	seen []string
}

func (r *recordingAPI) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

func newRecordingAPI(t *testing.T, handler http.HandlerFunc) (*recordingAPI, map[string]string) {
	rec := &recordingAPI{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.seen = append(rec.seen, r.Method+" "+r.URL.RequestURI())
		rec.mu.Unlock()
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	return rec, map[string]string{"NOMADISH_ADDR": srv.URL}
}

func TestOperatorRaftTransferLeadership(t *testing.T) {
	rec, env := newRecordingAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("id") == "nope" {
			http.Error(w, `no voting raft peer with id "nope"`, http.StatusBadRequest)
		}
	})
	for _, tc := range []struct {
		args []string
		out  string
	}{
		{[]string{"-peer-id=abc"}, "Transferred leadership to peer with id \"abc\"\n"},
		{[]string{"-peer-address=10.0.0.2:4647"}, "Transferred leadership to peer with address \"10.0.0.2:4647\"\n"},
		{nil, "Transferred leadership to a peer raft chooses\n"},
	} {
		code, out, errOut := runCLI(env, append([]string{"operator", "raft", "transfer-leadership"}, tc.args...)...)
		if code != 0 || out != tc.out {
			t.Errorf("%v: exit %d, out %q, stderr %q", tc.args, code, out, errOut)
		}
	}
	want := []string{"PUT /v1/operator/raft/transfer-leadership?id=abc",
		"PUT /v1/operator/raft/transfer-leadership?address=10.0.0.2%3A4647",
		"PUT /v1/operator/raft/transfer-leadership"}
	if got := rec.calls(); len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("calls %q, want %q", got, want)
	}
	if code, _, errOut := runCLI(env, "operator", "raft", "transfer-leadership", "-peer-id=nope"); code != 1 || errOut == "" {
		t.Fatalf("unknown peer: exit %d, stderr %q", code, errOut)
	}
	if code, _, _ := runCLI(env, "operator", "raft", "transfer-leadership", "-peer-id=a", "-peer-address=b"); code != 1 {
		t.Fatalf("both flags: exit %d", code)
	}
}
