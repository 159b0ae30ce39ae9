package exec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
	"github.com/nomadish/nomadish/drivers/internal/netns/netnstest"
)

// A task given a group network starts in that namespace, sees the group's
// hosts and resolv.conf files as /etc/hosts and /etc/resolv.conf, and a
// command exec'd into it (alloc exec) joins the same namespace. After a
// plugin restart (a new driver recovering the handle) it is still there.
func TestTaskJoinsGroupNetwork(t *testing.T) {
	requireRoot(t)
	path, link := netnstest.New(t)
	files := t.TempDir()
	hosts, resolv := filepath.Join(files, "hosts"), filepath.Join(files, "resolv.conf")
	if err := os.WriteFile(hosts, []byte("127.0.0.1 localhost\n10.9.8.7 web-group\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(resolv, []byte("nameserver 10.9.8.53\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := New(nil)
	cfg := task(t, `readlink /proc/self/ns/net; cat /etc/hosts /etc/resolv.conf; echo ready; while :; do sleep 0.05; done`)
	cfg.Network = &base.NetworkIsolation{Path: path, HostsPath: hosts, ResolvConfPath: resolv}
	h := start(t, d, cfg)
	waitForLog(t, cfg.StdoutPath, "ready")
	out := readLog(cfg.StdoutPath)
	for _, want := range []string{link, "10.9.8.7 web-group", "nameserver 10.9.8.53"} {
		if !strings.Contains(out, want) {
			t.Fatalf("task output %q lacks %q", out, want)
		}
	}
	got, _, res := drivertest.Exec(t, d.(base.ExecStreamer), cfg.ID, false, "", "readlink", "/proc/self/ns/net")
	if !res.Successful() || strings.TrimSpace(got) != link {
		t.Fatalf("exec'd command in %q (%+v), want %s", got, res, link)
	}

	b := New(nil) // a restarted plugin
	if err := b.RecoverTask(h); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.DestroyTask(cfg.ID, true) })
	got, _, res = drivertest.Exec(t, b.(base.ExecStreamer), cfg.ID, false, "", "readlink", "/proc/self/ns/net")
	if !res.Successful() || strings.TrimSpace(got) != link {
		t.Fatalf("after recovery: exec'd command in %q (%+v), want %s", got, res, link)
	}
	if err := b.StopTask(cfg.ID, 5*time.Second, ""); err != nil {
		t.Fatal(err)
	}
}

// A missing hosts file is an error naming it, and nothing starts.
func TestGroupNetworkMissingHostsFile(t *testing.T) {
	requireRoot(t)
	path, _ := netnstest.New(t)
	d := New(nil)
	cfg := task(t, "true")
	cfg.Network = &base.NetworkIsolation{Path: path, HostsPath: "/nonexistent/hosts"}
	_, err := d.StartTask(cfg)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/hosts") {
		t.Fatalf("got %v, want an error naming the hosts file", err)
	}
}
