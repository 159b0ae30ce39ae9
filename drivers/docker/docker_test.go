package docker_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
	"github.com/docker/docker/errdefs"

	"github.com/nomadish/nomadish/drivers"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/catalog"
	"github.com/nomadish/nomadish/drivers/docker"
	"github.com/nomadish/nomadish/drivers/docker/dockertest"
	"github.com/nomadish/nomadish/drivers/drivertest"
)

// TestMain lets the test binary serve as the plugin, as in package drivers.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "plugin" {
		if err := drivers.Serve(catalog.Builtin, os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var engine struct {
	once sync.Once
	cli  *client.Client
	err  error
}

// engineClient returns a client of the local engine with the test image
// imported. No engine is a failure, not a skip: CI and this machine have one.
func engineClient(t *testing.T) *client.Client {
	t.Helper()
	engine.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		engine.cli, engine.err = client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
		if engine.err == nil {
			_, engine.err = engine.cli.Ping(ctx)
		}
		if engine.err == nil {
			engine.err = dockertest.EnsureImage(ctx, "")
		}
	})
	if engine.err != nil {
		t.Fatalf("docker engine needed for the docker driver tests (install and start docker): %v", engine.err)
	}
	return engine.cli
}

// shTask returns a task running script under the test image's sh, in an
// alloc of its own whose containers are removed when the test ends.
func shTask(t *testing.T, script string) *base.TaskConfig {
	t.Helper()
	cli := engineClient(t)
	dir := t.TempDir()
	allocID := fmt.Sprintf("t%d", time.Now().UnixNano())
	t.Cleanup(func() { removeAlloc(cli, allocID) })
	logs := filepath.Join(dir, "alloc", "logs")
	return &base.TaskConfig{
		ID: allocID + "/web", Name: "web", AllocID: allocID, JobName: "test",
		Env:       map[string]string{"GREETING": "hi", "NOMAD_ALLOC_DIR": filepath.Join(dir, "alloc")},
		Config:    map[string]any{"image": dockertest.Image, "command": "/bin/sh", "args": []any{"-c", script}},
		Resources: base.Resources{CPUShares: 100, MemoryMB: 64},
		AllocDir:  filepath.Join(dir, "alloc"), TaskDir: filepath.Join(dir, "web"),
		StdoutPath: filepath.Join(logs, "web.stdout"), StderrPath: filepath.Join(logs, "web.stderr"),
	}
}

func removeAlloc(cli *client.Client, allocID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, _ := cli.ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", docker.LabelAllocID+"="+allocID))})
	for _, c := range list {
		_ = cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true})
	}
}

func newDriver(t *testing.T) base.Driver {
	t.Helper()
	d := docker.New(nil)
	if err := d.SetConfig(nil); err != nil {
		t.Fatal(err)
	}
	return d
}

func containerID(t *testing.T, d base.Driver, id string) string {
	t.Helper()
	st, err := d.InspectTask(id)
	if err != nil {
		t.Fatal(err)
	}
	return st.DriverAttributes["container_id"]
}

func TestStartWaitExitCodeLogsDestroy(t *testing.T) {
	d := newDriver(t)
	cfg := shTask(t, `echo "out $GREETING dir=$NOMAD_ALLOC_DIR"; echo err >&2; ls /alloc >/dev/null && exit 3`)
	h, err := d.StartTask(cfg)
	if err != nil {
		t.Fatalf("StartTask: %v", err)
	}
	if _, err := d.StartTask(cfg); !errors.Is(err, base.ErrTaskExists) {
		t.Fatalf("second StartTask: %v, want ErrTaskExists", err)
	}
	res := drivertest.WaitExit(t, d, cfg.ID, 20*time.Second)
	if res.ExitCode != 3 || res.OOMKilled || res.Err != nil {
		t.Fatalf("exit = %+v, want code 3", res)
	}
	if got := drivertest.ReadLog(cfg.StdoutPath); got != "out hi dir=/alloc\n" {
		t.Errorf("stdout log = %q", got)
	}
	if got := drivertest.ReadLog(cfg.StderrPath); got != "err\n" {
		t.Errorf("stderr log = %q", got)
	}
	cli := engineClient(t)
	info, err := cli.ContainerInspect(context.Background(), containerID(t, d, cfg.ID))
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "/web-"+cfg.AllocID || info.Config.Labels[docker.LabelAllocID] != cfg.AllocID || info.Config.Labels[docker.LabelTaskName] != "web" {
		t.Errorf("container name %q labels %v", info.Name, info.Config.Labels)
	}
	if len(h.DriverState) == 0 {
		t.Error("handle has no driver state")
	}
	if err := d.DestroyTask(cfg.ID, false); err != nil {
		t.Fatalf("DestroyTask: %v", err)
	}
	if _, err := cli.ContainerInspect(context.Background(), info.ID); !errdefs.IsNotFound(err) {
		t.Fatalf("container still there after destroy: %v", err)
	}
	if _, err := d.InspectTask(cfg.ID); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("InspectTask after destroy: %v", err)
	}
}

func TestStopTrappedSignalThenKillAfterTimeout(t *testing.T) {
	d := newDriver(t)
	// Exits cleanly on SIGINT (the kill signal asked for); ignores SIGTERM.
	graceful := shTask(t, `trap 'echo got-int; exit 0' INT; trap '' TERM; echo ready; while true; do sleep 1; done`)
	stubborn := shTask(t, `trap 'echo ignored' TERM INT; echo ready; while true; do sleep 1; done`)
	for _, cfg := range []*base.TaskConfig{graceful, stubborn} {
		if _, err := d.StartTask(cfg); err != nil {
			t.Fatal(err)
		}
		waitForLog(t, cfg.StdoutPath, "ready")
	}
	start := time.Now()
	if err := d.StopTask(graceful.ID, 10*time.Second, "SIGINT"); err != nil {
		t.Fatal(err)
	}
	if res := drivertest.WaitExit(t, d, graceful.ID, time.Second); res.ExitCode != 0 {
		t.Errorf("graceful exit = %+v, want 0", res)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("graceful stop took %v", el)
	}
	if got := drivertest.ReadLog(graceful.StdoutPath); !strings.Contains(got, "got-int") {
		t.Errorf("graceful log %q lacks got-int", got)
	}
	start = time.Now()
	if err := d.StopTask(stubborn.ID, 2*time.Second, ""); err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	if res := drivertest.WaitExit(t, d, stubborn.ID, time.Second); res.ExitCode != 137 {
		t.Errorf("stubborn exit = %+v, want 137 (SIGKILL)", res)
	}
	if el < 2*time.Second || el > 8*time.Second {
		t.Errorf("stubborn stop took %v, want the 2s timeout then a kill", el)
	}
	if err := d.DestroyTask(stubborn.ID, false); err != nil {
		t.Fatal(err)
	}
}

func waitForLog(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(drivertest.ReadLog(path), want) {
		if time.Now().After(deadline) {
			t.Fatalf("%q not in %s: %q", want, path, drivertest.ReadLog(path))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestResourcesInInspectAndStats(t *testing.T) {
	d := newDriver(t)
	cfg := shTask(t, `echo ready; while true; do i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done; sleep 1; done`)
	cfg.Resources = base.Resources{CPUShares: 250, MemoryMB: 64, MemoryMaxMB: 96}
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	info, err := engineClient(t).ContainerInspect(context.Background(), containerID(t, d, cfg.ID))
	if err != nil {
		t.Fatal(err)
	}
	r := info.HostConfig.Resources
	if r.Memory != 96<<20 || r.MemoryReservation != 64<<20 || r.CPUShares != 250 {
		t.Errorf("memory %d reservation %d shares %d, want %d %d 250", r.Memory, r.MemoryReservation, r.CPUShares, 96<<20, 64<<20)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	ch, err := d.TaskStats(ctx, cfg.ID, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// A shell that just started may not have used a whole clock tick of
	// CPU yet (cgroup v1 counts user/system time in ticks): read samples,
	// one a second, until one shows CPU time, for up to the context's 15 s.
	var last any
	for u := range ch {
		last = u
		if u.Memory.RSS > 0 && u.CPU.UserTime+u.CPU.SystemTime > 0 {
			last = nil
			break
		}
	}
	if last != nil || ctx.Err() != nil {
		t.Errorf("no stats sample with memory and cpu time in 15 s; last %+v", last)
	}
	if err := d.DestroyTask(cfg.ID, false); !errors.Is(err, base.ErrTaskRunning) {
		t.Fatalf("DestroyTask of a running task: %v, want ErrTaskRunning", err)
	}
	if err := d.DestroyTask(cfg.ID, true); err != nil {
		t.Fatal(err)
	}
}

func TestFingerprint(t *testing.T) {
	engineClient(t)
	d := newDriver(t)
	fp, err := d.Fingerprint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if fp.Health != base.HealthHealthy || fp.Attributes["driver.docker"] != "1" ||
		fp.Attributes["driver.docker.version"] == "" || !strings.Contains(fp.Attributes["driver.docker.runtimes"], "runc") {
		t.Fatalf("fingerprint = %+v", fp)
	}
	if err := d.SetConfig(map[string]any{"endpoint": "unix:///nonexistent/docker.sock"}); err != nil {
		t.Fatal(err)
	}
	fp, err = d.Fingerprint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if fp.Health != base.HealthUnhealthy || !strings.Contains(fp.HealthDescription, "/nonexistent/docker.sock") {
		t.Fatalf("fingerprint with a bogus endpoint = %+v, want unhealthy naming it", fp)
	}
	if err := d.SetConfig(map[string]any{"endpoit": "x"}); err == nil || !strings.Contains(err.Error(), "endpoit") {
		t.Fatalf("SetConfig with a typo: %v", err)
	}
}

func TestPullFailureIsClear(t *testing.T) {
	d := newDriver(t)
	cfg := shTask(t, "true")
	cfg.Config["image"] = "127.0.0.1:1/nomadish/missing:1" // nothing listens on port 1
	_, err := d.StartTask(cfg)
	if err == nil || !strings.Contains(err.Error(), "Failed to pull `127.0.0.1:1/nomadish/missing:1`") {
		t.Fatalf("StartTask with a missing image: %v", err)
	}
	if _, err := d.InspectTask(cfg.ID); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("failed start left a task: %v", err)
	}
}

func TestOOMKilledFromEngine(t *testing.T) {
	d := newDriver(t)
	cfg := shTask(t, `x=$(head -c 200000000 /dev/zero | /bin/busybox tr '\0' a); echo survived`)
	cfg.Resources = base.Resources{CPUShares: 100, MemoryMB: 16}
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	res := drivertest.WaitExit(t, d, cfg.ID, 30*time.Second)
	if !res.OOMKilled || res.Successful() {
		t.Fatalf("exit = %+v, want OOMKilled", res)
	}
}

func TestVolumesAndMounts(t *testing.T) {
	d := newDriver(t)
	cfg := shTask(t, `cat /data/f /ro/f; echo w > /scratch/x && cat /scratch/x; echo no > /ro/f 2>/dev/null || echo ro-refused`)
	if err := os.MkdirAll(filepath.Join(cfg.TaskDir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg.TaskDir, "data", "f"), []byte("from-volume\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Config["volumes"] = []any{"data:/data"}
	cfg.Config["mount"] = []any{
		map[string]any{"type": "bind", "source": "data", "target": "/ro", "readonly": true},
		map[string]any{"type": "tmpfs", "target": "/scratch", "tmpfs_options": []any{map[string]any{"size": int64(1 << 20)}}},
	}
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	if res := drivertest.WaitExit(t, d, cfg.ID, 20*time.Second); res.ExitCode != 0 {
		t.Fatalf("exit %+v, stderr %q", res, drivertest.ReadLog(cfg.StderrPath))
	}
	if got := drivertest.ReadLog(cfg.StdoutPath); got != "from-volume\nfrom-volume\nw\nro-refused\n" {
		t.Errorf("stdout %q", got)
	}
	cfg2 := shTask(t, "true")
	cfg2.Config["volumes"] = []any{"/etc:/host-etc"}
	if _, err := d.StartTask(cfg2); err == nil || !strings.Contains(err.Error(), "volumes { enabled = true }") {
		t.Fatalf("absolute volume with volumes disabled: %v", err)
	}
}

// TestReservedCoresPinTheContainer: Resources.Cores become CpusetCpus and
// the container's processes are allowed on those cores only.
func TestReservedCoresPinTheContainer(t *testing.T) {
	d := newDriver(t)
	cfg := shTask(t, `grep Cpus_allowed_list /proc/self/status; while true; do sleep 1; done`)
	cfg.Resources.Cores = []uint16{1}
	cfg.Resources.NUMANodes = []uint16{0}
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = d.DestroyTask(cfg.ID, true) }()
	info, err := engineClient(t).ContainerInspect(context.Background(), containerID(t, d, cfg.ID))
	if err != nil {
		t.Fatal(err)
	}
	if r := info.HostConfig.Resources; r.CpusetCpus != "1" || r.CpusetMems != "0" {
		t.Errorf("CpusetCpus %q CpusetMems %q, want 1 and 0", r.CpusetCpus, r.CpusetMems)
	}
	waitForLog(t, cfg.StdoutPath, "Cpus_allowed_list:\t1\n")
}
