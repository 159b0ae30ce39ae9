package rawexec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/netns/netnstest"
)

// A raw_exec task given a group network is born in that namespace.
func TestTaskJoinsGroupNetwork(t *testing.T) {
	path, link := netnstest.New(t)
	d := New(nil)
	if err := d.SetConfig(map[string]any{"enabled": true}); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	out := filepath.Join(root, "out")
	cfg := &base.TaskConfig{
		ID: "a/t/" + t.Name(), Name: "t", TaskDir: root,
		Env:        map[string]string{"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
		Config:     map[string]any{"command": "/bin/sh", "args": []any{"-c", "readlink /proc/self/ns/net; ip -o link show | cut -d: -f2"}},
		Network:    &base.NetworkIsolation{Path: path},
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
	b, _ := os.ReadFile(out + ".0")
	lines := strings.Fields(string(b))
	if len(lines) != 2 || lines[0] != link || lines[1] != "lo" {
		t.Fatalf("task saw %q, want %s and only the namespace's lo", b, link)
	}
}
