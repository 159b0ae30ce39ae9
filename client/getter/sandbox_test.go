package getter_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/client/getter"
)

// subprocessMarker makes the test binary act as `nomadish artifact-fetch`.
const subprocessMarker = "GETTER_TEST_AS_SUBPROCESS"

func TestMain(m *testing.M) {
	if os.Getenv(subprocessMarker) == "1" && len(os.Args) > 1 && os.Args[len(os.Args)-1] == getter.SubCommand {
		os.Exit(getter.RunSubprocess(os.Stdin, os.Stderr))
	}
	os.Exit(m.Run())
}

// subprocessConfig runs downloads in this test binary as a subprocess.
func subprocessConfig(t *testing.T) getter.Config {
	t.Helper()
	t.Setenv(subprocessMarker, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := getter.DefaultConfig()
	cfg.Executable, cfg.InheritEnv = exe, []string{subprocessMarker}
	return cfg
}

// In a subprocess a download works, its errors come back, and it sees a
// minimal environment: not the agent's variables (a token), only PATH,
// TMPDIR (the task's tmp dir) and what InheritEnv names.
func TestSubprocessDownloadAndEnvironment(t *testing.T) {
	arch := tarGz(t, entry{Name: "f.txt", Body: "from the subprocess"})
	s := serve(t, map[string][]byte{"/a.tar.gz": arch})
	cfg := subprocessConfig(t)
	t.Setenv("NOMAD_TOKEN", "agent-secret-token")
	alloc, task := dirs(t)
	if err := os.MkdirAll(filepath.Join(task, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := getter.Get(t.Context(), cfg, getter.Request{Source: s.URL + "/a.tar.gz", AllocDir: alloc, TaskDir: task, Dest: "local/",
		Options: map[string]string{"checksum": "sha256:" + sha(arch)}}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(task, "local", "f.txt")); got != "from the subprocess" {
		t.Fatalf("f.txt = %q", got)
	}
	err := getter.Get(t.Context(), cfg, getter.Request{Source: s.URL + "/a.tar.gz", AllocDir: alloc, TaskDir: task, Dest: "local/",
		Options: map[string]string{"checksum": "sha256:" + strings.Repeat("0", 64)}})
	if err == nil || !strings.Contains(err.Error(), "Checksums did not match") {
		t.Fatalf("checksum error through the subprocess: %v", err)
	}

	// The subprocess copies its own environment (isolation off so that
	// /proc may be read).
	cfg.DisableFilesystemIsolation = true
	if err := getter.Get(t.Context(), cfg, getter.Request{Source: "file:///proc/self/environ", Mode: "file", Dest: "local/environ",
		AllocDir: alloc, TaskDir: task}); err != nil {
		t.Fatal(err)
	}
	env := strings.Split(readFile(t, filepath.Join(task, "local", "environ")), "\x00")
	want := map[string]string{"PATH": "/usr/local/bin:/usr/bin:/bin", "TMPDIR": filepath.Join(task, "tmp"), subprocessMarker: "1"}
	for _, kv := range env {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if w, ok := want[k]; !ok || w != v {
			t.Errorf("subprocess env has %s", kv)
		}
		delete(want, k)
	}
	if len(want) != 0 {
		t.Errorf("subprocess env lacks %v", want)
	}
}

func TestSubprocessBadInput(t *testing.T) {
	var errOut strings.Builder
	if code := getter.RunSubprocess(strings.NewReader("{not json"), &errOut); code != 2 || !strings.Contains(errOut.String(), "reading parameters") {
		t.Fatalf("code %d, stderr %q", code, errOut.String())
	}
}

func TestSubprocessKilledOnCancel(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	cfg := subprocessConfig(t)
	alloc, task := dirs(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- getter.Get(ctx, cfg, getter.Request{Source: srv.URL + "/hang", AllocDir: alloc, TaskDir: task, Dest: "local/"})
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "stopped") {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not stop the subprocess")
	}
}
