package rawexec

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// raw_exec has no isolation: a volume_mount is the host path in the task's
// environment (NOMAD_HOST_VOLUME_<name>, the name's other characters "_").
func TestHostVolumeInEnv(t *testing.T) {
	root := t.TempDir()
	vol := filepath.Join(root, "vol")
	if err := os.MkdirAll(vol, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vol, "hello"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := New(nil)
	if err := d.SetConfig(map[string]any{"enabled": true}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "out")
	cfg := &base.TaskConfig{
		ID: "a/t/" + t.Name(), Name: "t", TaskDir: root,
		Env:        map[string]string{"PATH": "/usr/bin:/bin"},
		Config:     map[string]any{"command": "/bin/sh", "args": []any{"-c", `cat "$NOMAD_HOST_VOLUME_ca_certs/hello"`}},
		Mounts:     []base.MountConfig{{TaskPath: "/certs", HostPath: vol, Readonly: true, Volume: "ca-certs"}},
		StdoutPath: out,
	}
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ch, err := d.WaitTask(ctx, cfg.ID)
	if err != nil {
		t.Fatal(err)
	}
	if res := <-ch; res == nil || !res.Successful() {
		t.Fatalf("exit %+v", res)
	}
	if b, _ := os.ReadFile(out + ".0"); string(b) != "hi" {
		t.Fatalf("stdout %q, want the volume's file", b)
	}
}
