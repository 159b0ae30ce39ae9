package qemu

import (
	"net"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
	"github.com/nomadish/nomadish/drivers/internal/netns"
	"github.com/nomadish/nomadish/drivers/internal/netns/netnstest"
)

// In a group network qemu runs inside the namespace, and user networking
// forwards the port's `to` there (the client's CNI portmap maps the host
// port onto it), not a host port.
func TestVMJoinsGroupNetwork(t *testing.T) {
	t.Parallel()
	path, link := netnstest.New(t)
	d, cfg := guest(t, false)
	cfg.Network = &base.NetworkIsolation{Path: path}
	cfg.Env["NOMAD_HOST_PORT_web"], cfg.Env["NOMAD_PORT_web"] = "27999", "8080"
	cfg.Config["port_map"] = []any{map[string]any{"web": int64(80)}}
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatalf("StartTask: %v", err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	tk, err := d.tasks.Get(cfg.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := netnstest.Link(t, tk.state.Pid); got != link {
		t.Fatalf("qemu in %s, want %s", got, link)
	}
	// hostfwd listens on 8080 inside the namespace (a real process: poll).
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := netns.Do(path, func() error {
			c, err := net.DialTimeout("tcp", "127.0.0.1:8080", time.Second)
			if err == nil {
				c.Close()
			}
			return err
		})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on 8080 in the namespace: %v; stderr %q", err, drivertest.ReadLog(cfg.StderrPath))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := d.StopTask(cfg.ID, 10*time.Second, ""); err != nil {
		t.Fatal(err)
	}
}
