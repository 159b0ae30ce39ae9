package taskrunner_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/state"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/structs"
)

// artifactRunner builds a batch task runner in root whose task has the
// artifact, with restart attempts 1 (mode fail), and writes body as
// <alloc>/alloc/data/app.txt, the file a file:// source may read.
func artifactRunner(t *testing.T, root string, a *structs.TaskArtifact, exitCode int, body string, env ...string) (*taskrunner.TaskRunner, *clienttest.FakeDriver, string) {
	t.Helper()
	drv := clienttest.NewFakeDriver()
	task := &structs.Task{Name: "t", Driver: "mock", Config: map[string]any{"run_for": "1s", "exit_code": exitCode},
		Artifacts: []*structs.TaskArtifact{a}, Env: map[string]string{}}
	for i := 0; i+1 < len(env); i += 2 {
		task.Env[env[i]] = env[i+1]
	}
	rp := &structs.RestartPolicy{Attempts: 1, Interval: time.Hour, Delay: 10 * time.Second, Mode: structs.RestartPolicyModeFail}
	alloc := testAlloc(structs.JobTypeBatch, task, rp)
	tr := newRunnerWith(t, alloc, drv, nil, root)
	src := filepath.Join(root, alloc.ID, "alloc", "data", "app.txt")
	if err := os.WriteFile(src, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return tr, drv, src
}

func TestArtifactFetchedOnceBeforeStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		sum := sha256.Sum256([]byte("v1"))
		a := &structs.TaskArtifact{GetterSource: "file://" + filepath.Join(root, "${NOMAD_ALLOC_ID}", "alloc", "data", "app.txt"),
			GetterOptions: map[string]string{"checksum": "sha256:" + hex.EncodeToString(sum[:])}, RelativeDest: "local/"}
		a.Canonicalize()
		tr, drv, src := artifactRunner(t, root, a, 1, "v1")
		go tr.Run()
		synctest.Wait() // the first instance runs
		if len(drv.Started()) != 1 {
			t.Fatalf("started %d times", len(drv.Started()))
		}
		got, err := os.ReadFile(filepath.Join(root, "a1", "t", "local", "app.txt"))
		if err != nil || string(got) != "v1" {
			t.Fatalf("artifact in local/: %q %v", got, err)
		}
		// The restart must not fetch again: a second fetch would now fail.
		if err := os.Remove(src); err != nil {
			t.Fatal(err)
		}
		<-tr.WaitCh()
		s := tr.State()
		want := "Received,Task Setup,Downloading Artifacts,Started,Terminated,Restarting,Started,Terminated,Not Restarting"
		if got := eventTypes(s); got != want {
			t.Fatalf("events = %s, want %s", got, want)
		}
	})
}

func TestArtifactWrongChecksumFailsPerRestartPolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		a := &structs.TaskArtifact{GetterSource: "file://" + filepath.Join(root, "a1", "alloc", "data", "app.txt"),
			GetterOptions: map[string]string{"checksum": "sha256:" + strings.Repeat("0", 64)}}
		a.Canonicalize()
		tr, drv, _ := artifactRunner(t, root, a, 0, "v1")
		go tr.Run()
		<-tr.WaitCh()
		s := tr.State()
		if s.State != structs.TaskStateDead || !s.Failed || s.Restarts != 1 {
			t.Fatalf("state = %s failed=%v restarts=%d", s.State, s.Failed, s.Restarts)
		}
		want := "Received,Task Setup,Downloading Artifacts,Failed Artifact Download,Restarting,Downloading Artifacts,Failed Artifact Download,Not Restarting"
		if got := eventTypes(s); got != want {
			t.Fatalf("events = %s, want %s", got, want)
		}
		if n := len(drv.Started()); n != 0 {
			t.Fatalf("the task started %d times without its artifact", n)
		}
		ev := s.Events[3]
		if !strings.Contains(ev.DownloadError, "failed to download artifact") || !strings.Contains(ev.DownloadError, "Checksums did not match") {
			t.Errorf("DownloadError = %q", ev.DownloadError)
		}
		if _, err := os.Stat(filepath.Join(root, "a1", "t", "local", "app.txt")); err == nil {
			t.Error("the artifact was placed despite its checksum")
		}
	})
}

func TestArtifactDestinationEscapeOnClient(t *testing.T) {
	// A destination that only escapes once interpolated is refused by the
	// client (the server could not see it).
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		a := &structs.TaskArtifact{GetterSource: "file://" + filepath.Join(root, "a1", "alloc", "data", "app.txt"),
			RelativeDest: "${DEST}"}
		a.Canonicalize()
		tr, _, _ := artifactRunner(t, root, a, 0, "v1", "DEST", "../../escaped")
		go tr.Run()
		<-tr.WaitCh()
		s := tr.State()
		if !s.Failed || !strings.Contains(s.Events[3].DownloadError, "escapes the allocation directory") {
			t.Fatalf("failed=%v events=%s %q", s.Failed, eventTypes(s), s.Events[3].DownloadError)
		}
		if _, err := os.Stat(filepath.Join(root, "escaped")); err == nil {
			t.Error("written outside the allocation")
		}
	})
}

func TestArtifactDownloadCancelledByKill(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		select { // a download that never ends
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	drv := clienttest.NewFakeDriver()
	task := &structs.Task{Name: "t", Driver: "mock", Config: map[string]any{"run_for": "1s"},
		Artifacts: []*structs.TaskArtifact{{GetterSource: srv.URL + "/big.bin", RelativeDest: "local/"}}}
	tr := newRunnerWith(t, testAlloc(structs.JobTypeBatch, task, nil), drv, nil)
	go tr.Run()
	<-started
	tr.Kill()
	select {
	case <-tr.WaitCh():
	case <-time.After(10 * time.Second):
		t.Fatal("Kill did not stop the download")
	}
	if s := tr.State(); s.State != structs.TaskStateDead || s.Failed || len(drv.Started()) != 0 {
		t.Fatalf("state = %s failed=%v started=%d events=%s", s.State, s.Failed, len(drv.Started()), eventTypes(s))
	}
}

func TestArtifactsNotFetchedAgainAfterClientRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		db, err := state.Open(filepath.Join(dir, "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		src := filepath.Join(dir, "a1", "alloc", "data", "app.txt")
		task := &structs.Task{Name: "t", Driver: "mock",
			Artifacts: []*structs.TaskArtifact{{GetterSource: "file://" + src, RelativeDest: "local/"}}}
		alloc := testAlloc(structs.JobTypeService, task, nil)
		tr1 := newRunnerWith(t, alloc, clienttest.NewFakeDriver(), func(c *taskrunner.Config) { c.State = db }, dir)
		if err := os.WriteFile(src, []byte("v1"), 0o644); err != nil {
			t.Fatal(err)
		}
		go tr1.Run()
		synctest.Wait()
		if err := os.Remove(src); err != nil { // a second fetch would fail
			t.Fatal(err)
		}
		// The client restarts and the task is gone (the machine rebooted):
		// the new runner starts it again without fetching again.
		drv2 := clienttest.NewFakeDriver()
		tr2 := newRunnerWith(t, alloc, drv2, func(c *taskrunner.Config) { c.State = db }, dir)
		go tr2.Run()
		synctest.Wait()
		if n := len(drv2.Started()); n != 1 {
			t.Fatalf("started %d, events %s", n, eventTypes(tr2.State()))
		}
		if ev := eventTypes(tr2.State()); strings.Count(ev, "Downloading Artifacts") != 1 || strings.Contains(ev, "Failed Artifact") {
			t.Fatalf("events %s", ev)
		}
		tr2.Kill()
		<-tr2.WaitCh()
		tr1.Kill()
		<-tr1.WaitCh()
	})
}
