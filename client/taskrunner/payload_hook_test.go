package taskrunner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/structs"
)

func payloadRunner(t *testing.T, file string, payload []byte) (*TaskRunner, string) {
	t.Helper()
	task := &structs.Task{Name: "t", DispatchPayload: &structs.DispatchPayloadConfig{File: file}}
	alloc := &structs.Allocation{ID: "a1", Job: &structs.Job{ID: "j/dispatch-1-abcd", Payload: payload}}
	ad := allocdir.New(t.TempDir(), alloc.ID)
	tr := &TaskRunner{cfg: Config{Alloc: alloc, Task: task, AllocDir: ad}}
	return tr, ad.TaskDir("t").LocalDir
}

func TestPayloadHookWritesIntoLocalDir(t *testing.T) {
	tr, local := payloadRunner(t, "in/data.json", []byte(`{"n":1}`))
	if _, err := writePayload(tr); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(local, "in", "data.json"))
	if err != nil || string(b) != `{"n":1}` {
		t.Fatalf("payload file = %q, %v", b, err)
	}
}

func TestPayloadHookRefusesEscapes(t *testing.T) {
	for _, file := range []string{"../x", "/etc/x", "a/../../x"} {
		tr, _ := payloadRunner(t, file, []byte("p"))
		if _, err := writePayload(tr); err == nil {
			t.Errorf("file %q: no error", file)
		}
	}
	// A symlink inside the local dir pointing out of it is not followed.
	tr, local := payloadRunner(t, "link/x", []byte("p"))
	outside := t.TempDir()
	if err := os.MkdirAll(local, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(local, "link")); err != nil {
		t.Fatal(err)
	}
	if _, err := writePayload(tr); err == nil {
		t.Fatal("wrote through a symlink out of the local dir")
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); !os.IsNotExist(err) {
		t.Fatalf("file written outside: %v", err)
	}
}

func TestPayloadHookNoBlockNoFile(t *testing.T) {
	tr, local := payloadRunner(t, "x", []byte("p"))
	tr.cfg.Task.DispatchPayload = nil
	if _, err := writePayload(tr); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(local, "x")); !os.IsNotExist(err) {
		t.Fatalf("file written without a dispatch_payload block: %v", err)
	}
}
