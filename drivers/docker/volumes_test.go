package docker_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
)

// Host volumes are bound into the container at their destination, outside
// the allocation directory without the plugin's volumes { enabled = true }
// (the client's host_volume config allows them), read-only with ":ro".
func TestHostVolumeBinds(t *testing.T) {
	d := newDriver(t)
	ro, rw := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ro, "f"), []byte("from-host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := shTask(t, `cat /srv/certs/f; echo no > /srv/certs/f 2>/dev/null || echo ro-refused; echo w > /scratch/x && echo rw-ok`)
	cfg.Mounts = []base.MountConfig{
		{TaskPath: "/srv/certs", HostPath: ro, Readonly: true, Volume: "certs"},
		{TaskPath: "scratch", HostPath: rw, Volume: "scratch"},
	}
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	if res := drivertest.WaitExit(t, d, cfg.ID, 20*time.Second); res.ExitCode != 0 {
		t.Fatalf("exit %+v, stderr %q", res, drivertest.ReadLog(cfg.StderrPath))
	}
	if got := drivertest.ReadLog(cfg.StdoutPath); got != "from-host\nro-refused\nrw-ok\n" {
		t.Errorf("stdout %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ro, "f")); string(b) != "from-host\n" {
		t.Errorf("read-only host file now %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(rw, "x")); string(b) != "w\n" {
		t.Errorf("read-write volume: host file %q", b)
	}
}
