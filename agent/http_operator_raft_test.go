package agent

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/structs"
)

// The official client lists the raft peers, is refused removing an unknown
// one, saves a snapshot (its Digest header checked), and restores it: a job
// registered after the save is gone, the one before is kept.
func TestOfficialClientRaftAndSnapshot(t *testing.T) {
	a, c := devAgent(t)
	op := c.Operator()
	conf, err := op.RaftGetConfiguration(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(conf.Servers) != 1 || !conf.Servers[0].Leader || !conf.Servers[0].Voter || conf.Servers[0].RaftProtocol != "3" ||
		conf.Servers[0].Node != "compat" || conf.Servers[0].ID == "" {
		t.Fatalf("raft configuration: %+v", conf.Servers[0])
	}
	if err := op.RaftRemovePeerByID("no-such-peer", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("remove unknown peer: %v, want a 404", err)
	}
	if err := op.RaftRemovePeerByAddress("127.0.0.1:1", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("remove unknown address: %v, want a 404", err)
	}

	register := func(id string) {
		t.Helper()
		job := api.NewServiceJob(id, id, "global", 50)
		job.Datacenters = []string{"nowhere"}
		job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(api.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")))
		if _, _, err := c.Jobs().Register(job, nil); err != nil {
			t.Fatal(err)
		}
	}
	register("kept")
	rc, err := op.Snapshot(nil)
	if err != nil {
		t.Fatal(err)
	}
	archive, err := io.ReadAll(rc) // the client checks the Digest at EOF
	rc.Close()
	if err != nil || len(archive) == 0 {
		t.Fatalf("snapshot: %d bytes, %v", len(archive), err)
	}
	register("extra")
	wm, err := op.SnapshotRestore(bytes.NewReader(archive), nil)
	if err != nil {
		t.Fatal(err)
	}
	if wm.LastIndex == 0 {
		t.Fatal("restore: no X-Nomad-Index")
	}
	if _, _, err := c.Jobs().Info("extra", nil); err == nil {
		t.Fatal("job registered after the snapshot survived the restore")
	}
	if _, _, err := c.Jobs().Info("kept", nil); err != nil {
		t.Fatalf("job in the snapshot: %v", err)
	}

	// Raw HTTP: a bad archive is a 400; the peer endpoint wants one key.
	base := "http://" + a.HTTPAddr()
	for _, tc := range []struct {
		method, path, body string
		code               int
	}{
		{http.MethodPut, "/v1/operator/snapshot", "not an archive", http.StatusBadRequest},
		// Past the API's 8 MiB body limit: read whole, refused as an archive.
		{http.MethodPut, "/v1/operator/snapshot", strings.Repeat("x", 9<<20), http.StatusBadRequest},
		{http.MethodDelete, "/v1/operator/raft/peer", "", http.StatusBadRequest},
		{http.MethodDelete, "/v1/operator/raft/peer?id=a&address=b", "", http.StatusBadRequest},
	} {
		req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader(tc.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.code)
		}
	}
}

// unreadBody fails the test if a handler reads it.
type unreadBody struct{ t *testing.T }

func (b unreadBody) Read([]byte) (int, error) {
	b.t.Error("the refused restore's body was read")
	return 0, io.EOF
}

// One snapshot restore at a time per agent: while one is receiving its
// body (held open through a pipe), another is refused with 429 without its
// body being read; once the first ends, a restore is accepted again.
func TestSnapshotRestoreOneAtATime(t *testing.T) {
	f := newFakeRPC().on(structs.OperatorSnapshotRestoreRPC, func(args, reply any) error {
		reply.(*structs.SnapshotRestoreResponse).Index = 7
		return nil
	})
	s := newHTTPServer(httpDeps{RPC: f})
	pr, pw := io.Pipe()
	first := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.ServeHTTP(first, httptest.NewRequest(http.MethodPut, "/v1/operator/snapshot", pr))
	}()
	// The pipe hands the chunk over only when the handler reads it, so the
	// first restore holds the gate from here on.
	if _, err := pw.Write([]byte("part of an archive")); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{http.MethodPut, http.MethodPost} {
		second := httptest.NewRecorder()
		s.ServeHTTP(second, httptest.NewRequest(method, "/v1/operator/snapshot", unreadBody{t}))
		if second.Code != http.StatusTooManyRequests || !strings.Contains(second.Body.String(), "a snapshot restore is already in progress") {
			t.Fatalf("%s during a restore: %d %q, want 429", method, second.Code, second.Body.String())
		}
	}
	pw.Close()
	<-done
	if first.Code != http.StatusOK {
		t.Fatalf("first restore: %d %q", first.Code, first.Body.String())
	}
	third := httptest.NewRecorder()
	s.ServeHTTP(third, httptest.NewRequest(http.MethodPut, "/v1/operator/snapshot", strings.NewReader("archive")))
	if third.Code != http.StatusOK {
		t.Fatalf("restore after the first ended: %d %q", third.Code, third.Body.String())
	}
	if n := len(f.callsTo(structs.OperatorSnapshotRestoreRPC)); n != 2 {
		t.Fatalf("%d restore RPCs, want 2", n)
	}
}
