package cli

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// fakeRaftAPI serves the raft and snapshot operator endpoints from memory.
type fakeRaftAPI struct {
	mu       sync.Mutex
	removed  []string // "id=x" / "address=y" of each DELETE
	restored []byte
}

func newFakeRaftAPI(t *testing.T, archive []byte) (*fakeRaftAPI, map[string]string) {
	f := &fakeRaftAPI{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/operator/raft/configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(structs.RaftConfigurationResponse{Index: 7, Servers: []*structs.RaftServer{
			{ID: "id-1", Node: "s1", Address: "10.0.0.1:4647", Leader: true, Voter: true, RaftProtocol: "3"},
			{ID: "id-2", Node: "s2", Address: "10.0.0.2:4647", Voter: true, RaftProtocol: "3"},
		}})
	})
	mux.HandleFunc("DELETE /v1/operator/raft/peer", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if id := r.URL.Query().Get("id"); id == "gone" {
			http.Error(w, `no raft peer with id "gone"`, http.StatusNotFound)
			return
		}
		f.removed = append(f.removed, r.URL.RawQuery)
	})
	mux.HandleFunc("GET /v1/operator/snapshot", func(w http.ResponseWriter, r *http.Request) {
		sum := sha256.Sum256(archive)
		w.Header().Set("Digest", "sha-256="+base64.StdEncoding.EncodeToString(sum[:]))
		w.Write(archive)
	})
	mux.HandleFunc("PUT /v1/operator/snapshot", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.restored, _ = io.ReadAll(r.Body)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, map[string]string{"NOMADISH_ADDR": srv.URL}
}

func TestOperatorRaftListPeersAndRemovePeer(t *testing.T) {
	f, env := newFakeRaftAPI(t, nil)
	code, out, errOut := runCLI(env, "operator", "raft", "list-peers")
	want := "Node  ID    Address        State     Voter  RaftProtocol\n" +
		"s1    id-1  10.0.0.1:4647  leader    true   3\n" +
		"s2    id-2  10.0.0.2:4647  follower  true   3\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d, stderr %q, output:\n%s\nwant:\n%s", code, errOut, out, want)
	}
	if code, out, _ := runCLI(env, "operator", "raft", "remove-peer", "-peer-id=id-2"); code != 0 || out != "Removed peer with id \"id-2\"\n" {
		t.Fatalf("remove by id: exit %d %q", code, out)
	}
	if code, _, _ := runCLI(env, "operator", "raft", "remove-peer", "-peer-address=10.0.0.2:4647"); code != 0 {
		t.Fatalf("remove by address: exit %d", code)
	}
	if code, _, errOut := runCLI(env, "operator", "raft", "remove-peer", "-peer-id=gone"); code != 1 || errOut == "" {
		t.Fatalf("remove unknown: exit %d %q", code, errOut)
	}
	for _, args := range [][]string{{}, {"-peer-id=a", "-peer-address=b"}, {"-peer-id=a", "extra"}} {
		if code, _, _ := runCLI(env, append([]string{"operator", "raft", "remove-peer"}, args...)...); code != 1 {
			t.Errorf("remove-peer %v: exit %d, want 1", args, code)
		}
	}
	if len(f.removed) != 2 || f.removed[0] != "id=id-2" || f.removed[1] != "address=10.0.0.2%3A4647" {
		t.Fatalf("DELETEs: %v", f.removed)
	}
}

func TestOperatorSnapshotSaveRestoreFiles(t *testing.T) {
	archive := []byte("pretend gzip archive")
	f, env := newFakeRaftAPI(t, archive)
	path := filepath.Join(t.TempDir(), "backup.snap")
	code, out, errOut := runCLI(env, "operator", "snapshot", "save", path)
	if code != 0 || out != "State file written to "+path+"\n" {
		t.Fatalf("save: exit %d %q %q", code, out, errOut)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != string(archive) {
		t.Fatalf("saved file %q, %v", got, err)
	}
	if matches, _ := filepath.Glob(path + ".tmp*"); len(matches) != 0 {
		t.Fatalf("temporary files left: %v", matches)
	}
	if code, out, _ := runCLI(env, "operator", "snapshot", "restore", path); code != 0 || out != "Snapshot Restored\n" {
		t.Fatalf("restore: exit %d %q", code, out)
	}
	if string(f.restored) != string(archive) {
		t.Fatalf("restored body %q", f.restored)
	}
	if code, _, _ := runCLI(env, "operator", "snapshot", "restore", filepath.Join(t.TempDir(), "missing")); code != 1 {
		t.Fatalf("restore of a missing file: exit %d", code)
	}
}
