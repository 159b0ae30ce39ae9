package client

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/client/allocgc"
	"github.com/nomadish/nomadish/client/allocrunner"
	"github.com/nomadish/nomadish/client/fingerprint"
	"github.com/nomadish/nomadish/client/network"
	"github.com/nomadish/nomadish/client/pluginmgr"
	"github.com/nomadish/nomadish/client/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/version"
)

// devKillWait bounds how long Shutdown waits for tasks in dev mode.
const devKillWait = 10 * time.Second

// Client is a running node agent. Its methods are safe for concurrent use.
type Client struct {
	cfg    Config
	rpc    RPCer
	logger hclog.Logger

	db      *state.DB
	net     *network.Manager // group networks (group_network.go)
	plugins *pluginmgr.Manager
	batch   *batcher
	tmpDir  string // dev-mode data dir to remove on Shutdown

	nodeMu sync.Mutex // guards node
	node   *structs.Node

	allocMu sync.Mutex // guards allocs, allocIdx and migrateTokens
	allocs  map[string]*allocrunner.AllocRunner
	// allocIdx is the AllocModifyIndex each runner was last updated to.
	allocIdx map[string]uint64
	// migrateTokens is the last Node.GetClientAllocs' MigrateTokens (by
	// replacement alloc ID); guarded by allocMu (migrate.go).
	migrateTokens map[string]string
	// collected are allocations garbage collected here that the servers
	// still list; guarded by allocMu (gc.go).
	collected map[string]struct{}
	gc        *allocgc.Collector // gc.go; set by New

	nodeChanged chan struct{}   // cap 1: node must be re-registered
	ctx         context.Context // ends on Shutdown: stops the watchers
	cancel      context.CancelFunc
	batchCancel context.CancelFunc // ends the batcher after its last flush
	wg          sync.WaitGroup
	shutdown    sync.Once
}

// New starts a client: it fingerprints the machine and launches the driver
// plugins (in parallel), restores the allocations it ran before a restart,
// then registers, heartbeats and watches allocations in the background.
// It returns once the node is built, without waiting for the servers.
func New(cfg *Config, rpc RPCer) (*Client, error) {
	c := &Client{cfg: *cfg, rpc: rpc, allocs: map[string]*allocrunner.AllocRunner{},
		allocIdx: map[string]uint64{}, collected: map[string]struct{}{}, nodeChanged: make(chan struct{}, 1)}
	if c.cfg.Logger == nil {
		c.cfg.Logger = hclog.NewNullLogger()
	}
	c.logger = c.cfg.Logger.Named("client")
	if c.cfg.Datacenter == "" {
		c.cfg.Datacenter = "dc1"
	}
	if c.cfg.Region == "" {
		c.cfg.Region = structs.DefaultRegion
	}
	if c.cfg.Version == "" {
		c.cfg.Version = version.Version
	}
	if err := c.setupDataDir(); err != nil {
		return nil, err
	}
	if err := c.init(); err != nil {
		c.cleanup()
		return nil, err
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	batchCtx, batchCancel := context.WithCancel(context.Background())
	c.batchCancel = batchCancel
	c.batch = newBatcher(rpc, c.cfg.Region, c.secret(), c.logger)
	c.wg.Go(func() { c.batch.run(batchCtx) })
	c.restoreAllocs()
	c.startGC() // gc.go
	c.wg.Go(c.registerAndHeartbeat)
	c.wg.Go(c.addCNIVersions) // cni_versions.go
	if c.cfg.PublishNodeMetrics || c.cfg.PublishAllocationMetrics {
		c.wg.Go(c.publishMetrics) // metrics.go
	}
	return c, nil
}

// setupDataDir settles the data, state and alloc dirs (a temporary data
// dir in dev mode) and creates the state and alloc dirs.
func (c *Client) setupDataDir() error {
	if c.cfg.DataDir == "" {
		if !c.cfg.DevMode {
			return errNoDataDir
		}
		dir, err := os.MkdirTemp("", "nomadish-client-")
		if err != nil {
			return fmt.Errorf("creating dev data dir: %w", err)
		}
		c.cfg.DataDir, c.tmpDir = dir, dir
	}
	if c.cfg.StateDir == "" {
		c.cfg.StateDir = filepath.Join(c.cfg.DataDir, "client")
	}
	if c.cfg.AllocDir == "" {
		c.cfg.AllocDir = filepath.Join(c.cfg.DataDir, "alloc")
	}
	for _, d := range []string{c.clientDir(), c.allocRoot()} {
		if err := os.MkdirAll(d, 0o711); err != nil {
			return fmt.Errorf("creating %s: %w", d, err)
		}
	}
	return nil
}

// clientDir is the state dir (state db, node and secret IDs); allocRoot
// holds one directory per allocation.
func (c *Client) clientDir() string { return c.cfg.StateDir }
func (c *Client) allocRoot() string { return c.cfg.AllocDir }

// init opens the state, fingerprints and starts the plugins concurrently,
// and builds the node.
func (c *Client) init() error {
	if err := c.openState(); err != nil {
		return err
	}
	c.net = network.NewManager(c.cfg.networkConfig()) // group_network.go
	id, err := loadOrCreateID(filepath.Join(c.clientDir(), "node-id"))
	if err != nil {
		return err
	}
	secret, err := loadOrCreateID(filepath.Join(c.clientDir(), "secret-id"))
	if err != nil {
		return err
	}
	launch := c.cfg.Launcher
	if launch == nil {
		launch = c.defaultLauncher()
	}
	c.plugins = pluginmgr.New(pluginmgr.Config{Drivers: c.cfg.enabledDrivers(os.Geteuid() == 0),
		Launch: launch, Logger: c.cfg.Logger, OnChange: c.driversChanged})
	var wg sync.WaitGroup
	wg.Go(c.plugins.Start)
	fcfg, err := c.cfg.fingerprintConfig(c.allocRoot())
	var fp *fingerprint.Result
	if err == nil {
		fp, err = fingerprint.Fingerprint(fcfg)
	}
	wg.Wait()
	if err != nil {
		return err
	}
	c.nodeMu.Lock()
	c.node = c.buildNode(fp, id, secret)
	c.refreshDrivers()
	c.nodeMu.Unlock()
	return nil
}

// openState opens the state db; a corrupt one is moved aside and logged
// loudly, and the client starts from a fresh db: its tasks are then found
// again through the drivers (taskrunner discovery), not started twice.
func (c *Client) openState() error {
	path := filepath.Join(c.clientDir(), "state.db")
	db, reset, err := state.OpenOrReset(path, time.Now())
	if err != nil {
		return err
	}
	if reset != nil {
		c.logger.Error("client state file is corrupt: moved it aside and started with a fresh state; running tasks will be re-discovered through their drivers",
			"path", path, "moved_to", reset.MovedTo, "reason", reset.Reason.Error())
	}
	c.db = db
	return nil
}

// driversChanged runs when a driver's health changed: update the node and
// have it re-registered.
func (c *Client) driversChanged() {
	c.nodeMu.Lock()
	if c.node != nil {
		c.refreshDrivers()
	}
	c.nodeMu.Unlock()
	select {
	case c.nodeChanged <- struct{}{}:
	default:
	}
}

// NodeID returns the node's ID (stable across restarts of the same data dir).
func (c *Client) NodeID() string {
	c.nodeMu.Lock()
	defer c.nodeMu.Unlock()
	return c.node.ID
}

// Node returns a copy of the node as registered.
func (c *Client) Node() *structs.Node {
	c.nodeMu.Lock()
	defer c.nodeMu.Unlock()
	return c.node.Copy()
}

// Shutdown stops the client's loops and plugin processes. Running tasks are
// left running (a restarted client re-attaches to them) unless DevMode,
// where they are killed first. Safe to call more than once.
func (c *Client) Shutdown() error {
	c.shutdown.Do(func() {
		c.cancel()
		if c.cfg.DevMode {
			c.killAllocs()
		}
		c.detachAllocs()
		c.batchCancel()
		c.wg.Wait()
		c.cleanup()
	})
	return nil
}

func (c *Client) cleanup() {
	if c.plugins != nil {
		c.plugins.Shutdown()
	}
	if c.db != nil {
		if err := c.db.Close(); err != nil {
			c.logger.Warn("closing state db", "error", err)
		}
	}
	if c.tmpDir != "" {
		os.RemoveAll(c.tmpDir)
	}
}

// killAllocs kills every allocation's tasks and waits (bounded) for them,
// then flushes their final states to the servers.
func (c *Client) killAllocs() {
	c.allocMu.Lock()
	runners := make([]*allocrunner.AllocRunner, 0, len(c.allocs))
	for _, ar := range c.allocs {
		runners = append(runners, ar)
	}
	c.allocMu.Unlock()
	deadline := time.NewTimer(devKillWait)
	defer deadline.Stop()
	for _, ar := range runners {
		ar.Kill()
	}
	for _, ar := range runners {
		select {
		case <-ar.WaitCh():
		case <-deadline.C:
			return
		}
	}
}

// detachAllocs stops the alloc runners without stopping their tasks.
func (c *Client) detachAllocs() {
	c.allocMu.Lock()
	runners := make([]*allocrunner.AllocRunner, 0, len(c.allocs))
	for _, ar := range c.allocs {
		runners = append(runners, ar)
	}
	c.allocMu.Unlock()
	for _, ar := range runners {
		ar.Shutdown()
	}
}
