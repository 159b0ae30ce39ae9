// Package docker is the docker driver: each task is a container on the
// local Docker engine, created from the task's `config` block (Nomad's
// names), with the task's memory and CPU limits, its stdout/stderr copied
// into the task's rotated log files, and labels naming the allocation and
// task. The container ID is the handle's driver state, so a new plugin
// process re-attaches to a running container with RecoverTask.
package docker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/client"
	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/base"
)

// Name is the driver name in job files.
const Name = "docker"

// DefaultEndpoint is the engine address used when the plugin config has no
// endpoint.
const DefaultEndpoint = "unix:///var/run/docker.sock"

// Container labels set on every container the driver creates.
const (
	LabelAllocID  = "com.nomadish.alloc_id"
	LabelTaskName = "com.nomadish.task_name"
	LabelTaskID   = "com.nomadish.task_id"
	LabelJobName  = "com.nomadish.job_name"
)

// pluginConfig is the plugin block: plugin "docker" { config { ... } }.
type pluginConfig struct {
	Endpoint       string
	VolumesEnabled bool   // volumes { enabled = true }: host paths outside the alloc dir allowed
	SELinuxLabel   string // volumes { selinuxlabel = "z" }: added to every bind
	// AllowPrivileged, AllowCaps, AllowRuntimes and AllowHostNamespaces are
	// the allowlists of security.go.
	AllowPrivileged     bool
	AllowCaps           []string
	AllowRuntimes       []string
	AllowHostNamespaces bool
	GCImage             bool // gc { image = true }: remove the image with the last container
	// Dangling is gc { dangling_containers { ... } } (reconcile.go).
	Dangling danglingConfig
	// InfraImage is infra_image: the image of group network infra
	// containers (network.go); empty: the local pause image (infra.go).
	InfraImage string
}

// Driver implements base.Driver on the Docker engine. Safe for concurrent use.
type Driver struct {
	logger hclog.Logger

	tasks *base.Table[task]

	mu  sync.Mutex // guards cfg, cli, stopReconcile
	cfg pluginConfig
	cli *client.Client // built lazily from cfg.Endpoint
	// stopReconcile ends the dangling-container loop SetConfig started.
	stopReconcile context.CancelFunc
	// infra are the infra containers in use (network.go), guarded by mu.
	infra map[string]bool
	// infraBuild serializes building the pause image (infra.go).
	infraBuild sync.Mutex
}

var _ base.Driver = (*Driver)(nil)

// New returns a docker driver talking to DefaultEndpoint until SetConfig
// says otherwise.
func New(logger hclog.Logger) base.Driver {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &Driver{logger: logger.Named(Name), cfg: defaultPluginConfig(),
		tasks: base.NewTable(func(t *task) *base.Exit { return t.exit })}
}

// defaultPluginConfig is the plugin config with no keys set: nothing beyond
// an ordinary container is allowed.
func defaultPluginConfig() pluginConfig {
	return pluginConfig{Endpoint: DefaultEndpoint, Dangling: defaultDangling(),
		AllowCaps: slices.Clone(nomadDefaultCaps), AllowRuntimes: slices.Clone(defaultRuntimes)}
}

// SetConfig accepts endpoint (string), volumes { enabled selinuxlabel },
// the allowlists allow_privileged, allow_caps, allow_runtimes and
// allow_host_namespaces (security.go), and gc { image dangling_containers {
// enabled period creation_grace dry_run } }, and (re)starts the
// dangling-container loop when enabled. Unknown keys are rejected by name;
// a few of Nomad's are accepted and ignored (ignoredKeys).
func (d *Driver) SetConfig(cfg map[string]any) error {
	c := defaultPluginConfig()
	for k, v := range cfg {
		var err error
		switch k {
		case "endpoint":
			s, ok := v.(string)
			if !ok || s == "" {
				err = fmt.Errorf("must be a non-empty string, got %T", v)
			}
			c.Endpoint = s
		case "volumes":
			err = parseVolumesBlock(v, &c)
		case "allow_privileged":
			c.AllowPrivileged, err = boolean(v)
		case "allow_host_namespaces":
			c.AllowHostNamespaces, err = boolean(v)
		case "allow_caps":
			c.AllowCaps, err = strList(v)
		case "allow_runtimes":
			c.AllowRuntimes, err = strList(v)
		case "gc":
			err = parseGC(v, &c)
		case "infra_image":
			if c.InfraImage, err = str(v); err == nil && c.InfraImage == "" {
				err = errors.New("must be a non-empty image reference")
			}
		default:
			if !ignoredKeys[k] {
				err = errors.New("unknown key")
			}
		}
		if err != nil {
			return fmt.Errorf("docker plugin config: %s: %w", k, err)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cli != nil {
		_ = d.cli.Close()
		d.cli = nil
	}
	d.cfg = c
	if d.stopReconcile != nil {
		d.stopReconcile()
		d.stopReconcile = nil
	}
	if c.Dangling.Enabled {
		ctx, cancel := context.WithCancel(context.Background())
		d.stopReconcile = cancel
		go d.reconcileLoop(ctx, c.Dangling.Period)
	}
	return nil
}

// ignoredKeys are keys of Nomad's docker plugin config accepted for
// compatibility and ignored.
var ignoredKeys = map[string]bool{
	"auth": true, "extra_labels": true,
	"pull_activity_timeout": true, "image_pull_timeout": true, "logging": true, "pids_limit": true,
}

// parseVolumesBlock reads volumes { enabled selinuxlabel } into c. HCL
// blocks may arrive as a map or as a list of one map.
func parseVolumesBlock(v any, c *pluginConfig) error {
	m, err := oneBlock(v)
	if err != nil {
		return err
	}
	for k, val := range m {
		switch k {
		case "enabled":
			c.VolumesEnabled, err = boolean(val)
		case "selinuxlabel":
			c.SELinuxLabel, err = str(val)
		default:
			return fmt.Errorf("unknown key %q", k)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

// client returns the engine client and the plugin config. The client is
// created once per endpoint and negotiates the API version with the engine.
func (d *Driver) client() (*client.Client, pluginConfig, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cli == nil {
		c, err := client.NewClientWithOpts(client.WithHost(d.cfg.Endpoint), client.WithAPIVersionNegotiation())
		if err != nil {
			return nil, d.cfg, fmt.Errorf("docker: endpoint %q: %w", d.cfg.Endpoint, err)
		}
		d.cli = c
	}
	return d.cli, d.cfg, nil
}

// Fingerprint is healthy with driver.docker, driver.docker.version and
// driver.docker.runtimes when the engine answers; unhealthy (detected, not
// failed) when it does not.
func (d *Driver) Fingerprint(ctx context.Context) (*base.Fingerprint, error) {
	cli, cfg, err := d.client()
	if err != nil {
		return &base.Fingerprint{Health: base.HealthUnhealthy, HealthDescription: err.Error()}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	info, err := cli.Info(ctx)
	if err != nil {
		return &base.Fingerprint{Health: base.HealthUnhealthy,
			HealthDescription: fmt.Sprintf("Failed to connect to docker daemon at %s: %v", cfg.Endpoint, err)}, nil
	}
	runtimes := make([]string, 0, len(info.Runtimes))
	for r := range info.Runtimes {
		runtimes = append(runtimes, r)
	}
	sort.Strings(runtimes)
	attrs := map[string]string{
		"driver.docker":          "1",
		"driver.docker.version":  info.ServerVersion,
		"driver.docker.runtimes": strings.Join(runtimes, ","),
	}
	if cfg.VolumesEnabled {
		attrs["driver.docker.volumes.enabled"] = "true"
	}
	return &base.Fingerprint{Health: base.HealthHealthy, HealthDescription: "Healthy", Attributes: attrs}, nil
}

// Capabilities: signals, exec (exec.go), image filesystem isolation,
// resource limits, group network namespaces (network.go).
func (d *Driver) Capabilities() (*base.Capabilities, error) {
	return &base.Capabilities{SendSignals: true, Exec: true, FSIsolation: base.FSIsolationImage, ResourceLimits: true,
		MustInitiateNetwork: true}, nil
}

// Default is docker's enablement rule: as Nomad, on by default on Linux
// (unhealthy without an engine), with its plugin config (possibly nil).
func Default(h base.Host, cfg map[string]any, _ bool) (map[string]any, bool) {
	return cfg, h.OS == "linux"
}
