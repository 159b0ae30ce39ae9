package docker_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/errdefs"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/docker"
	"github.com/nomadish/nomadish/drivers/drivertest"
	"github.com/nomadish/nomadish/drivers/internal/netns"
)

// createNetwork starts alloc's infra container through d, removed with the
// alloc's containers when the test ends.
func createNetwork(t *testing.T, d base.Driver, allocID, hostname string) *base.NetworkIsolation {
	t.Helper()
	spec, created, err := d.(base.NetworkManager).CreateNetwork(allocID, &base.NetworkCreateRequest{Hostname: hostname})
	if err != nil {
		t.Fatal(err)
	}
	if !created {
		t.Fatal("first CreateNetwork said it existed")
	}
	return spec
}

// The infra container holds the group's namespace: CreateNetwork starts
// nomad_init_<alloc> (network mode none, the group's hostname) and returns
// its /proc/<pid>/ns/net; a second call (client restart) finds it; a docker
// task of the group joins it (container:<infra>, the infra's hostname, no
// port bindings of its own); DestroyNetwork removes it, twice is fine.
func TestInfraContainerHoldsGroupNetwork(t *testing.T) {
	cli := engineClient(t)
	d := newDriver(t)
	if c, _ := d.Capabilities(); !c.MustInitiateNetwork {
		t.Fatal("docker does not say it initiates networks")
	}
	cfg := shTask(t, `busybox readlink /proc/self/ns/net; busybox hostname; ip=$(busybox ip -o link | busybox wc -l); echo links=$ip`)
	spec := createNetwork(t, d, cfg.AllocID, "web-7")
	id := spec.Labels[docker.SandboxLabel]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	info, err := cli.ContainerInspect(ctx, docker.InfraContainerName(cfg.AllocID))
	if err != nil || info.ID != id || string(info.HostConfig.NetworkMode) != "none" || !info.State.Running {
		t.Fatalf("infra container %+v, %v", info.HostConfig, err)
	}
	if spec.Path != fmt.Sprintf("/proc/%d/ns/net", info.State.Pid) {
		t.Fatalf("path %s, infra pid %d", spec.Path, info.State.Pid)
	}
	again, created, err := d.(base.NetworkManager).CreateNetwork(cfg.AllocID, &base.NetworkCreateRequest{Hostname: "web-7"})
	if err != nil || created || again.Labels[docker.SandboxLabel] != id || again.Path != spec.Path {
		t.Fatalf("second create: %+v created=%v %v", again, created, err)
	}

	ino, err := netns.Inode(spec.Path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Network = spec
	cfg.Env["NOMAD_HOST_PORT_http"], cfg.Env["NOMAD_PORT_http"] = "23456", "8080"
	cfg.Config["ports"] = []any{"http"}
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	if res := drivertest.WaitExit(t, d, cfg.ID, 30*time.Second); !res.Successful() {
		t.Fatalf("exit %+v: %s", res, drivertest.ReadLog(cfg.StderrPath))
	}
	out := drivertest.ReadLog(cfg.StdoutPath)
	for _, want := range []string{fmt.Sprintf("net:[%d]", ino), "web-7", "links=1"} {
		if !strings.Contains(out, want) {
			t.Fatalf("task output %q lacks %q", out, want)
		}
	}
	task, err := cli.ContainerInspect(ctx, containerID(t, d, cfg.ID))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(task.HostConfig.NetworkMode); got != "container:"+id || len(task.HostConfig.PortBindings) != 0 {
		t.Fatalf("task network mode %q, bindings %v", got, task.HostConfig.PortBindings)
	}

	nm := d.(base.NetworkManager)
	if err := nm.DestroyNetwork(cfg.AllocID, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.ContainerInspect(ctx, id); !errdefs.IsNotFound(err) {
		t.Fatalf("infra container after destroy: %v", err)
	}
	if err := nm.DestroyNetwork(cfg.AllocID, spec); err != nil {
		t.Fatalf("second destroy: %v", err)
	}
}

// A docker task of a group with its own network cannot pick its own
// network_mode; one given a namespace docker does not hold is refused.
func TestGroupNetworkRefusesTaskNetworkMode(t *testing.T) {
	d := newDriver(t)
	cfg := shTask(t, "true")
	cfg.Network = &base.NetworkIsolation{Path: "/proc/1/ns/net", Labels: map[string]string{docker.SandboxLabel: "abc"}}
	cfg.Config["network_mode"] = "bridge"
	if _, err := d.StartTask(cfg); err == nil || !strings.Contains(err.Error(), "network_mode") {
		t.Fatalf("got %v, want an error naming network_mode", err)
	}
	delete(cfg.Config, "network_mode")
	cfg.Network = &base.NetworkIsolation{Path: "/var/run/netns/x"}
	if _, err := d.StartTask(cfg); err == nil || !strings.Contains(err.Error(), docker.SandboxLabel) {
		t.Fatalf("got %v, want an error about the namespace's holder", err)
	}
}

// The dangling reconciler of a restarted plugin (nothing tracked) lists the
// infra container of an allocation without containers left, and leaves
// the one whose allocation still runs a task (dry run: other tests'
// containers on the same engine are not touched).
func TestDanglingInfraContainers(t *testing.T) {
	starter := newDriver(t)
	live := shTask(t, `while true; do sleep 1; done`)
	if err := os.MkdirAll(live.AllocDir, 0o755); err != nil {
		t.Fatal(err)
	}
	liveSpec := createNetwork(t, starter, live.AllocID, "")
	live.Network = liveSpec
	if _, err := starter.StartTask(live); err != nil {
		t.Fatal(err)
	}
	gone := shTask(t, "true")
	goneSpec := createNetwork(t, starter, gone.AllocID, "")

	d := docker.New(nil).(*docker.Driver)
	cfg := map[string]any{"gc": []any{map[string]any{"dangling_containers": []any{map[string]any{
		"creation_grace": "1ns", "period": "1h", "dry_run": true}}}}}
	if err := d.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	listed, err := d.ReconcileDangling(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(listed, goneSpec.Labels[docker.SandboxLabel]) || slices.Contains(listed, liveSpec.Labels[docker.SandboxLabel]) {
		t.Fatalf("dangling %v: want %s (no tasks) and not %s (a running task)", listed,
			goneSpec.Labels[docker.SandboxLabel], liveSpec.Labels[docker.SandboxLabel])
	}
	// The plugin that made it tracks it: not dangling there.
	if listed, err := starter.(*docker.Driver).ReconcileDangling(ctx); err != nil || slices.Contains(listed, goneSpec.Labels[docker.SandboxLabel]) {
		t.Fatalf("tracked infra listed as dangling: %v %v", listed, err)
	}
}

func TestInfraImageConfig(t *testing.T) {
	d := docker.New(nil)
	if err := d.SetConfig(map[string]any{"infra_image": ""}); err == nil || !strings.Contains(err.Error(), "infra_image") {
		t.Fatalf("empty infra_image: %v", err)
	}
	if err := d.SetConfig(map[string]any{"infra_image": "registry.example/pause:3"}); err != nil {
		t.Fatal(err)
	}
}
