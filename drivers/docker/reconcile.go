package docker

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
)

// LabelAllocDir names the allocation directory of the task on the client
// that created the container. The dangling-container reconciler removes a
// container whose alloc dir is gone: its client destroyed the alloc (or its
// data dir was wiped) without removing the container. Several clients on
// one host share the engine; each one's live alloc dirs keep theirs safe.
const LabelAllocDir = "com.nomadish.alloc_dir"

// Defaults of gc { dangling_containers { ... } }, as Nomad's.
const (
	defaultDanglingPeriod = 5 * time.Minute
	defaultCreationGrace  = 5 * time.Minute
)

// danglingConfig is gc { dangling_containers { enabled period creation_grace dry_run } }.
type danglingConfig struct {
	Enabled       bool
	Period        time.Duration
	CreationGrace time.Duration
	DryRun        bool
}

func defaultDangling() danglingConfig {
	return danglingConfig{Enabled: true, Period: defaultDanglingPeriod, CreationGrace: defaultCreationGrace}
}

// dangling reports whether a container listed by the engine is an orphan:
// labelled by nomadish with an alloc dir that no longer exists, not a task
// this driver tracks, and created more than grace before now.
func dangling(c container.Summary, tracked map[string]bool, now time.Time, grace time.Duration) bool {
	dir := c.Labels[LabelAllocDir]
	if dir == "" || tracked[c.ID] || now.Sub(time.Unix(c.Created, 0)) < grace {
		return false
	}
	_, err := os.Stat(dir)
	return os.IsNotExist(err)
}

// ReconcileDangling removes the dangling containers now and returns their
// IDs (with dry_run, it only lists them). The periodic loop calls it; so can
// tests.
func (d *Driver) ReconcileDangling(ctx context.Context) ([]string, error) {
	cli, cfg, err := d.client()
	if err != nil {
		return nil, err
	}
	list, err := cli.ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", LabelAllocDir))})
	if err != nil {
		return nil, err
	}
	tracked := map[string]bool{}
	for _, t := range d.tasks.List() {
		tracked[t.state.ContainerID] = true
	}
	var removed []string
	now := time.Now()
	allocsWithTasks := map[string]bool{}
	for _, c := range list {
		if !dangling(c, tracked, now, cfg.Dangling.CreationGrace) {
			allocsWithTasks[c.Labels[LabelAllocID]] = true
			continue
		}
		if !cfg.Dangling.DryRun {
			if err := cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
				d.logger.Warn("removing dangling container", "container", c.ID, "error", err)
				continue
			}
		}
		d.logger.Info("dangling container removed", "container", c.ID, "names", c.Names, "dry_run", cfg.Dangling.DryRun)
		removed = append(removed, c.ID)
	}
	infra, err := d.reconcileInfra(ctx, cli, cfg, allocsWithTasks, now)
	return append(removed, infra...), err
}

// reconcileInfra removes the infra containers (network.go) of allocations
// that are gone: untracked, without a task container left, past the grace.
func (d *Driver) reconcileInfra(ctx context.Context, cli *client.Client, cfg pluginConfig, allocsWithTasks map[string]bool, now time.Time) ([]string, error) {
	list, err := cli.ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", LabelInfra))})
	if err != nil {
		return nil, err
	}
	tracked := d.infraTracked()
	old := func(created int64) bool { return now.Sub(time.Unix(created, 0)) >= cfg.Dangling.CreationGrace }
	var removed []string
	for _, c := range list {
		if !danglingInfra(c, tracked, allocsWithTasks, old) {
			continue
		}
		if !cfg.Dangling.DryRun {
			if err := cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true}); err != nil {
				d.logger.Warn("removing dangling infra container", "container", c.ID, "error", err)
				continue
			}
		}
		d.logger.Info("dangling infra container removed", "container", c.ID, "names", c.Names, "dry_run", cfg.Dangling.DryRun)
		removed = append(removed, c.ID)
	}
	return removed, nil
}

// reconcileLoop runs ReconcileDangling every period until ctx ends. Started
// by SetConfig when enabled; SetConfig's next call stops it.
func (d *Driver) reconcileLoop(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		if _, err := d.ReconcileDangling(cctx); err != nil {
			d.logger.Debug("dangling container reconcile", "error", err)
		}
		cancel()
	}
}

// parseGC reads gc { image = bool  dangling_containers { ... } } into c;
// Nomad's image_delay and container are accepted and ignored.
func parseGC(v any, c *pluginConfig) error {
	m, err := block(v)
	if err != nil {
		return err
	}
	for k, val := range m {
		switch k {
		case "image":
			b, ok := val.(bool)
			if !ok {
				return fmt.Errorf("image must be a bool, got %T", val)
			}
			c.GCImage = b
		case "dangling_containers":
			if err := parseDangling(val, &c.Dangling); err != nil {
				return fmt.Errorf("dangling_containers: %w", err)
			}
		case "image_delay", "container":
		default:
			return fmt.Errorf("unknown key %q", k)
		}
	}
	return nil
}

func parseDangling(v any, dc *danglingConfig) error {
	m, err := block(v)
	if err != nil {
		return err
	}
	for k, val := range m {
		switch k {
		case "enabled", "dry_run":
			b, ok := val.(bool)
			if !ok {
				return fmt.Errorf("%s must be a bool, got %T", k, val)
			}
			if k == "enabled" {
				dc.Enabled = b
			} else {
				dc.DryRun = b
			}
		case "period", "creation_grace":
			s, ok := val.(string)
			d, err := time.ParseDuration(s)
			if !ok || err != nil || d <= 0 {
				return fmt.Errorf("%s must be a positive duration such as \"5m\", got %v", k, val)
			}
			if k == "period" {
				dc.Period = d
			} else {
				dc.CreationGrace = d
			}
		default:
			return fmt.Errorf("unknown key %q", k)
		}
	}
	return nil
}

// block unwraps an HCL block, which arrives as a map or a list of one map.
func block(v any) (map[string]any, error) {
	if l, ok := v.([]any); ok && len(l) == 1 {
		v = l[0]
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be a block, got %T", v)
	}
	return m, nil
}
