package docker

import (
	"context"
	"errors"
	"fmt"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/errdefs"

	"github.com/nomadish/nomadish/drivers/base"
)

// Group networks (base.NetworkManager). A container can only share the
// network namespace another container holds, so for a group in bridge, none
// or CNI mode with a docker task the driver creates the namespace: a small
// infra ("pause") container nomad_init_<allocID> with network mode "none",
// whose /proc/<pid>/ns/net the client sets up with CNI and every task of
// the group joins (exec and raw_exec by setns, docker tasks with network
// mode container:<infra>). The infra container holds the namespace and the
// hostname for the life of the allocation; DestroyNetwork removes it.

// Labels of the infra container and of the namespace spec.
const (
	// LabelInfra marks an infra container (value: the allocation ID).
	LabelInfra = "com.nomadish.infra_alloc_id"
	// SandboxLabel is the namespace spec's label naming the infra
	// container (Nomad's).
	SandboxLabel = "docker_sandbox_container_id"
)

var _ base.NetworkManager = (*Driver)(nil)

// InfraContainerName is the infra container's name for an allocation.
func InfraContainerName(allocID string) string { return "nomad_init_" + allocID }

// CreateNetwork starts the allocation's infra container, or finds it
// running after a client restart (created false). A stopped one left
// behind is replaced: its namespace is gone with its process.
func (d *Driver) CreateNetwork(allocID string, req *base.NetworkCreateRequest) (*base.NetworkIsolation, bool, error) {
	if allocID == "" {
		return nil, false, errors.New("docker: create network: empty allocation ID")
	}
	cli, pc, err := d.client()
	if err != nil {
		return nil, false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), pullTimeout)
	defer cancel()
	name := InfraContainerName(allocID)
	info, err := cli.ContainerInspect(ctx, name)
	switch {
	case err == nil && info.State != nil && info.State.Running && info.State.Pid > 0:
		d.trackInfra(info.ID)
		return infraSpec(info.ID, info.State.Pid), false, nil
	case err == nil:
		if rerr := cli.ContainerRemove(ctx, info.ID, container.RemoveOptions{Force: true}); rerr != nil && !errdefs.IsNotFound(rerr) {
			return nil, false, fmt.Errorf("docker: removing stopped infra container %s: %w", name, rerr)
		}
	case !errdefs.IsNotFound(err):
		return nil, false, fmt.Errorf("docker: inspecting infra container %s: %w", name, err)
	}
	img, err := d.ensureInfraImage(ctx, cli, pc)
	if err != nil {
		return nil, false, err
	}
	cc := &container.Config{Image: img, Labels: map[string]string{LabelInfra: allocID, LabelAllocID: allocID}}
	if req != nil {
		cc.Hostname = req.Hostname
	}
	hc := &container.HostConfig{NetworkMode: "none"}
	created, err := cli.ContainerCreate(ctx, cc, hc, nil, nil, name)
	if err != nil {
		return nil, false, fmt.Errorf("docker: creating infra container %s: %w", name, err)
	}
	d.trackInfra(created.ID)
	if err := cli.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		_ = cli.ContainerRemove(ctx, created.ID, container.RemoveOptions{Force: true})
		return nil, false, fmt.Errorf("docker: starting infra container %s: %w", name, err)
	}
	info, err = cli.ContainerInspect(ctx, created.ID)
	if err != nil || info.State == nil || info.State.Pid == 0 {
		_ = cli.ContainerRemove(ctx, created.ID, container.RemoveOptions{Force: true})
		return nil, false, fmt.Errorf("docker: infra container %s is not running: %v", name, err)
	}
	d.logger.Debug("infra container started", "alloc", allocID, "container", created.ID)
	return infraSpec(created.ID, info.State.Pid), true, nil
}

func infraSpec(id string, pid int) *base.NetworkIsolation {
	return &base.NetworkIsolation{Path: fmt.Sprintf("/proc/%d/ns/net", pid), Labels: map[string]string{SandboxLabel: id}}
}

// DestroyNetwork removes the infra container (by the spec's label, else by
// name); an absent one is not an error.
func (d *Driver) DestroyNetwork(allocID string, spec *base.NetworkIsolation) error {
	cli, _, err := d.client()
	if err != nil {
		return err
	}
	ref := InfraContainerName(allocID)
	if spec != nil && spec.Labels[SandboxLabel] != "" {
		ref = spec.Labels[SandboxLabel]
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	err = cli.ContainerRemove(ctx, ref, container.RemoveOptions{Force: true})
	if err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("docker: removing infra container %s: %w", ref, err)
	}
	d.mu.Lock()
	delete(d.infra, ref)
	d.mu.Unlock()
	return nil
}

// trackInfra records an infra container this plugin process knows to be
// in use (created, found, or named by a task's network), so the dangling
// reconciler leaves it alone.
func (d *Driver) trackInfra(id string) {
	if id == "" {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.infra == nil {
		d.infra = map[string]bool{}
	}
	d.infra[id] = true
}

// infraTracked returns a copy of the tracked infra container IDs.
func (d *Driver) infraTracked() map[string]bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]bool, len(d.infra))
	for id := range d.infra {
		out[id] = true
	}
	return out
}

// applyGroupNetwork makes a task of a group with its own namespace join
// the infra container's: network mode container:<infra> (which also
// gives it the infra's hostname), no port bindings of its own (the
// client's CNI portmap maps the group's ports), and the group's hosts and
// resolv.conf files when the client wrote them. A task's own network_mode
// is an error: the group's network decides.
func applyGroupNetwork(cfg *base.TaskConfig, tc *taskConfig, cc *container.Config, hc *container.HostConfig) error {
	n := cfg.Network
	if n == nil {
		return nil
	}
	if tc.NetworkMode != "" {
		return fmt.Errorf("network_mode %q: not allowed in a group with its own network (network { mode = ... }): the task joins the group's namespace", tc.NetworkMode)
	}
	id := n.Labels[SandboxLabel]
	if id == "" {
		return fmt.Errorf("group network %s was not created by the docker driver (no %s label): a docker task can only join a namespace the docker driver holds", n.Path, SandboxLabel)
	}
	hc.NetworkMode = container.NetworkMode("container:" + id)
	cc.ExposedPorts, hc.PortBindings = nil, nil
	cc.Hostname, cc.Domainname = "", ""
	for _, f := range []struct{ src, dst string }{{n.HostsPath, "/etc/hosts"}, {n.ResolvConfPath, "/etc/resolv.conf"}} {
		if f.src != "" {
			hc.Binds = append(hc.Binds, f.src+":"+f.dst+":ro")
		}
	}
	return nil
}

// danglingInfra reports whether an infra container is an orphan: not
// tracked by this plugin process, no container of its allocation left
// (tasks are removed by the reconciler once their alloc dir is gone), and
// older than the creation grace.
func danglingInfra(c container.Summary, tracked, allocsWithTasks map[string]bool, grace func(int64) bool) bool {
	alloc := c.Labels[LabelInfra]
	return alloc != "" && !tracked[c.ID] && !allocsWithTasks[alloc] && grace(c.Created)
}
