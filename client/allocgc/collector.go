package allocgc

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/internal/clock"
)

var (
	// ErrUnknownAlloc: the client holds no such allocation (never here,
	// or destroyed already).
	ErrUnknownAlloc = errors.New("allocgc: unknown allocation")
	// ErrNotTerminal: the allocation still has a live task.
	ErrNotTerminal = errors.New("allocgc: allocation is not terminal")
)

// Runners is the client as the collector sees it.
type Runners interface {
	// Allocs lists the allocations the client holds (not those destroyed
	// or being destroyed). The caller owns the slice.
	Allocs() []Alloc
	// Destroy takes allocation id's runner from the client and destroys
	// it through the client's destroy path (tasks killed, network torn
	// down, alloc dir and stored state removed), returning once done; an
	// error wrapping ErrUnknownAlloc when the client no longer holds it.
	Destroy(id string) error
}

// DiskStats measures the filesystem holding a directory (StatFS in
// statfs.go; tests fake it).
type DiskStats interface {
	Usage(dir string) (DiskUsage, error)
}

// Collector applies the rules for one client. Its methods are safe from
// any goroutine; Run is the one goroutine it needs, started and ended by
// its owner through ctx.
type Collector struct {
	cfg     Config
	runners Runners
	disk    DiskStats
	dir     string // the alloc dir whose filesystem is measured
	clock   clock.Clock
	logger  hclog.Logger
	sem     chan struct{} // one slot per destroy in progress (ParallelDestroys)
	kick    chan struct{} // cap 1: Kick asks Run for a pass now
}

// New returns a collector of runners' allocations, measuring the
// filesystem of dir with disk. Zero config fields take their defaults;
// a nil clock is the wall clock, a nil logger discards.
func New(cfg Config, runners Runners, disk DiskStats, dir string, clk clock.Clock, logger hclog.Logger) *Collector {
	cfg = cfg.WithDefaults()
	if clk == nil {
		clk = clock.Real{}
	}
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &Collector{cfg: cfg, runners: runners, disk: disk, dir: dir, clock: clk,
		logger: logger.Named("gc"), sem: make(chan struct{}, cfg.ParallelDestroys),
		kick: make(chan struct{}, 1)}
}

// Config returns the collector's configuration, defaults applied.
func (c *Collector) Config() Config { return c.cfg }

// Kick asks Run for a pass now rather than at the next interval (the
// client got new allocations: Nomad's MakeRoomFor). It never blocks; kicks
// before a pass starts count once.
func (c *Collector) Kick() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// Run checks the limits every Interval, and when kicked
// (KeepUnderLimits), until ctx ends; it returns once the pass in
// progress, if any, is over.
func (c *Collector) Run(ctx context.Context) {
	tick := make(chan struct{}, 1)
	for {
		t := c.clock.AfterFunc(c.cfg.Interval, func() {
			select {
			case tick <- struct{}{}:
			default:
			}
		})
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-tick:
		case <-c.kick:
			t.Stop()
		}
		if err := c.KeepUnderLimits(ctx); err != nil && ctx.Err() == nil {
			c.logger.Warn("garbage collection pass failed", "error", err)
		}
	}
}

// KeepUnderLimits destroys terminal allocations, oldest first, while the
// alloc dir's filesystem is over a threshold or the client holds more
// than MaxAllocs allocations, and terminal ones are left. It measures
// again after every round. A disk that cannot be measured leaves the
// count rule alone (the error is returned at the end).
func (c *Collector) KeepUnderLimits(ctx context.Context) error {
	var statErr error
	for ctx.Err() == nil {
		u, err := c.usage()
		if err != nil {
			statErr = err
		}
		d := Decide(c.runners.Allocs(), u, c.cfg)
		if len(d.Destroy) == 0 {
			break
		}
		c.logger.Info("collecting terminal allocations", "reason", d.Reason, "count", len(d.Destroy))
		if done, _ := c.destroyAll(ctx, d.Destroy, d.Reason); done == 0 {
			break // no progress: leave it to the next pass
		}
	}
	return statErr
}

func (c *Collector) usage() (DiskUsage, error) {
	if c.disk == nil {
		return DiskUsage{}, nil
	}
	u, err := c.disk.Usage(c.dir)
	if err != nil {
		return DiskUsage{}, fmt.Errorf("measuring the alloc dir's disk %s: %w", c.dir, err)
	}
	return u, nil
}

// CollectAll destroys every terminal allocation now, oldest first, at
// most ParallelDestroys at once (node gc). It returns how many went, and
// the destroy errors joined.
func (c *Collector) CollectAll(ctx context.Context) (int, error) {
	return c.destroyAll(ctx, AllTerminal(c.runners.Allocs()), "forced garbage collection")
}

// Collect destroys allocation id now (alloc gc): ErrUnknownAlloc when the
// client does not hold it, ErrNotTerminal while a task of it lives.
func (c *Collector) Collect(ctx context.Context, id string) error {
	for _, a := range c.runners.Allocs() {
		if a.ID != id {
			continue
		}
		if !a.Terminal {
			return fmt.Errorf("allocation %s: %w", id, ErrNotTerminal)
		}
		return c.Destroy(ctx, id, "forced garbage collection")
	}
	return fmt.Errorf("allocation %s: %w", id, ErrUnknownAlloc)
}

// Destroy destroys allocation id under the concurrency bound, whatever its
// state (the servers no longer have it: its tasks are killed). It waits
// for a slot, or for ctx.
func (c *Collector) Destroy(ctx context.Context, id, reason string) error {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("destroying allocation %s: %w", id, ctx.Err())
	}
	defer func() { <-c.sem }()
	c.logger.Info("destroying allocation", "alloc_id", id, "reason", reason)
	if err := c.runners.Destroy(id); err != nil {
		return fmt.Errorf("destroying allocation %s: %w", id, err)
	}
	return nil
}

// destroyAll destroys ids concurrently under the bound and waits for all;
// it returns how many were destroyed and the other errors joined (an
// allocation gone meanwhile is not an error).
func (c *Collector) destroyAll(ctx context.Context, ids []string, reason string) (int, error) {
	var (
		mu   sync.Mutex
		done int
		errs []error
		wg   sync.WaitGroup
	)
	for _, id := range ids {
		wg.Go(func() {
			err := c.Destroy(ctx, id, reason)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				done++
			case !errors.Is(err, ErrUnknownAlloc):
				errs = append(errs, err)
			}
		})
	}
	wg.Wait()
	return done, errors.Join(errs...)
}
