package cluster

import (
	"errors"
	"io"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/hashicorp/serf/serf"

	"github.com/nomadish/nomadish/structs"
)

// Sentinel errors. Their text keeps the server's prefix: they reach
// operators in agent errors and HTTP answers, and server.ErrConfig is
// ErrConfig itself.
var (
	ErrConfig     = errors.New("server: invalid config")
	ErrNoSerf     = errors.New("server: gossip is not running (dev mode or no serf address)")
	ErrEncryptKey = errors.New("server: invalid gossip encryption key")
)

// PeerCaller calls an RPC method on another server at its RPC address (the
// server's peer pool; the bootstrap asks servers for their raft peers).
type PeerCaller interface {
	RPC(addr, method string, args, reply any) error
}

// Config is what New needs from the server's configuration and wiring.
type Config struct {
	Region, Datacenter, NodeName string
	// DataDir holds the server ID, the raft log and snapshots and the serf
	// snapshot and keyring (under <DataDir>/server); unused in DevMode.
	DataDir string
	// DevMode keeps raft in memory with fast elections.
	DevMode bool
	// BootstrapExpect: 1 bootstraps raft alone at once; more waits for that
	// many servers to join over serf.
	BootstrapExpect int
	// Advertise is the address peers and clients reach (the raft address,
	// which is the RPC port's).
	Advertise string
	// Layer carries raft over the RPC port (NewStreamLayer); unused in
	// DevMode (an in-memory transport).
	Layer *StreamLayer
	// Gossip holds the serf membership settings.
	Gossip GossipConfig
	// Raft holds raft's durability knobs.
	Raft RaftConfig
	// FSM is what raft applies committed entries to.
	FSM raft.FSM
	// LeaderNotify receives true/false as this server gains or loses raft
	// leadership (raft.Config.NotifyCh).
	LeaderNotify chan bool
	// Peers calls other servers (bootstrap checks).
	Peers PeerCaller
	// Logger is the server's logger; raft and serf log under sub-names.
	Logger hclog.Logger
	// Autopilot returns the stored autopilot configuration (nil func:
	// structs.DefaultAutopilotConfig); called from the membership loop.
	Autopilot func() *structs.AutopilotConfig
	// StableSince reports since when the raft server id has been healthy
	// by autopilot's rules (false: unhealthy or unknown); the leader
	// promotes a non-voter once that is ServerStabilizationTime ago. nil:
	// an alive server is healthy since it was first seen alive.
	StableSince func(id string) (time.Time, bool)
}

// Cluster is the server's raft node and serf membership: raft over the
// FSM, the gossip ring of servers, the bootstrap once bootstrap_expect
// servers joined, raft peers kept in step with serf on the leader (and
// dead servers removed), the gossip keyring, and leader tracking. New
// starts raft, StartGossip starts serf; its methods are safe for
// concurrent use once StartGossip returned.
type Cluster struct {
	cfg      Config
	logger   hclog.Logger
	serverID string

	raft      *raft.Raft     // set by New
	transport raft.Transport // set by New
	bolt      io.Closer      // the on-disk log; nil in dev mode

	// serf and eventCh are written once by StartGossip before any reader
	// starts.
	serf    *serf.Serf
	eventCh chan serf.Event
	gossip  GossipConfig // Config.Gossip with defaults

	bootstrapped bool                 // membership loop only
	failedSince  map[string]time.Time // membership loop only: raft ID -> first seen failed
	aliveSince   map[string]time.Time // membership loop only: raft ID -> first seen alive (non-voters)

	joinMu sync.Mutex // serializes Join calls from RPCs and retry_join

	shutdownOnce sync.Once
	shutdownCh   chan struct{}
	wg           sync.WaitGroup // the membership loop and retry_join
}

// New loads (or creates) the server's raft ID and starts raft over
// cfg.FSM, bootstrapping a single server (or a dev one) that has no state
// yet. Gossip starts with StartGossip.
func New(cfg Config) (*Cluster, error) {
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	c := &Cluster{
		cfg: cfg, logger: cfg.Logger, gossip: cfg.Gossip.withDefaults(),
		failedSince: map[string]time.Time{}, aliveSince: map[string]time.Time{}, shutdownCh: make(chan struct{}),
	}
	var err error
	if c.serverID, err = loadServerID(cfg.DataDir, cfg.DevMode); err != nil {
		return nil, err
	}
	if err := c.setupRaft(); err != nil {
		c.Shutdown()
		return nil, err
	}
	return c, nil
}

// ServerID is this server's raft ID (persisted under the data dir; random
// in dev mode).
func (c *Cluster) ServerID() string { return c.serverID }

// Raft is the raft node, for the raft operations of the server's wiring
// and operator endpoints (configuration, peer removal, snapshots).
func (c *Cluster) Raft() *raft.Raft { return c.raft }

// IsLeader reports whether this server is the raft leader.
func (c *Cluster) IsLeader() bool { return c.raft != nil && c.raft.State() == raft.Leader }

// Leader returns the leader's RPC address, "" when unknown.
func (c *Cluster) Leader() string {
	if c.raft == nil {
		return ""
	}
	addr, _ := c.raft.LeaderWithID()
	return string(addr)
}

// LastContact is how long ago this server last heard from the leader (0 on
// the leader itself), for X-Nomad-LastContact on stale reads.
func (c *Cluster) LastContact() time.Duration {
	if c.raft == nil || c.IsLeader() {
		return 0
	}
	t := c.raft.LastContact()
	if t.IsZero() {
		return 0
	}
	return time.Since(t)
}

// Stats returns raft's own stats (state, term, last_log_index,
// applied_index, last_contact, ...) for /v1/agent/self's "raft" section.
func (c *Cluster) Stats() map[string]string {
	if c.raft == nil {
		return map[string]string{}
	}
	return c.raft.Stats()
}

// Shutdown stops gossip without a graceful leave (a stopped server stays a
// raft voter, as Nomad: a restart must not shrink the quorum), shuts raft
// down, waits for the membership loop and retry_join, and closes raft's
// transport and log. Safe to call twice.
func (c *Cluster) Shutdown() error {
	first := false
	c.shutdownOnce.Do(func() { close(c.shutdownCh); first = true })
	if !first {
		return nil
	}
	var errs structs.MultiError
	if c.serf != nil {
		errs.Add(c.serf.Shutdown())
	}
	if c.raft != nil {
		errs.Add(c.raft.Shutdown().Error())
	}
	c.wg.Wait()
	if cl, ok := c.transport.(io.Closer); ok {
		errs.Add(cl.Close())
	}
	if c.bolt != nil {
		errs.Add(c.bolt.Close())
	}
	return errs.ErrorOrNil()
}
