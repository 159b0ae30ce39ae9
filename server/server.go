package server

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/schema"
	"github.com/nomadish/nomadish/internal/clock"
	"github.com/nomadish/nomadish/server/broker"
	"github.com/nomadish/nomadish/server/cluster"
	"github.com/nomadish/nomadish/server/endpoints"
	"github.com/nomadish/nomadish/server/events"
	"github.com/nomadish/nomadish/server/fsm"
	"github.com/nomadish/nomadish/server/gc"
	"github.com/nomadish/nomadish/server/heartbeat"
	"github.com/nomadish/nomadish/server/keyring"
	"github.com/nomadish/nomadish/server/nodeconn"
	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/server/rpcserver"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Sentinel errors.
var (
	// ErrConfig is an invalid config; the cluster's config errors (raft
	// knobs, serf addresses) are this same error.
	ErrConfig = cluster.ErrConfig
	// ErrUnknownMethod is returned by RPC for a method no endpoint serves.
	ErrUnknownMethod = rpcserver.ErrUnknownMethod
)

// ClientIntroductionConfig is the servers' policy for new nodes; the Node
// endpoint enforces it (endpoints/node_auth.go).
type ClientIntroductionConfig = endpoints.ClientIntroductionConfig

// Client introduction enforcement modes (endpoints/node_auth.go).
const (
	IntroEnforcementNone   = endpoints.IntroEnforcementNone
	IntroEnforcementWarn   = endpoints.IntroEnforcementWarn
	IntroEnforcementStrict = endpoints.IntroEnforcementStrict
)

// Config configures a Server. Zero fields take DefaultConfig's values.
type Config struct {
	Region, Datacenter, NodeName, DataDir string
	// DevMode keeps raft in memory (nothing is written to DataDir).
	DevMode bool
	// RPCAddr is the host:port to listen on for RPC and raft ("" in dev
	// mode: no TCP listener, in-process RPC only; port 0: any free port).
	RPCAddr string
	// RPCAdvertise is the host:port other servers and clients reach; it
	// defaults to the listener's address.
	RPCAdvertise string
	// TLS, when set, is the RPC port's mutual TLS (server/rpcserver).
	TLS *RPCTLSConfig
	// BootstrapExpect is how many servers must join (over serf) before raft
	// bootstraps with all of them as voters; 1 bootstraps alone at once.
	BootstrapExpect int
	// Cluster holds the serf membership settings (server/cluster); without
	// a SerfAddr the server gossips with no one.
	Cluster cluster.GossipConfig
	// NumSchedulers is the number of scheduler workers (default NumCPU).
	NumSchedulers int
	// HeartbeatGrace is added to each node's TTL before it is marked down.
	HeartbeatGrace time.Duration
	// MinHeartbeatTTL is the smallest TTL handed to clients.
	MinHeartbeatTTL time.Duration
	// MaxHeartbeatsPerSecond is the heartbeat rate TTLs aim for: they grow
	// to numNodes/MaxHeartbeatsPerSecond seconds (default 50).
	MaxHeartbeatsPerSecond float64
	// AllocUpdateBatch is how long client alloc updates are gathered into
	// one raft entry (default 10ms).
	AllocUpdateBatch time.Duration
	Logger           hclog.Logger
	// Clock is the server's one clock (default: the wall clock): every time
	// stamped into state (evals, nodes, allocs, deployments) and every
	// leader timer (heartbeats, eval broker, deployment watcher, drainer)
	// follows it. Network deadlines (RPC hold and forward waits, conn
	// deadlines, serf and raft) stay on wall time.
	Clock clock.Clock
	// Raft holds the raft durability knobs (server/cluster).
	Raft cluster.RaftConfig
	// JobMaxCount bounds a job's summed group counts on register, scale
	// and plan (0: structs.DefaultJobMaxCount; endpoints/job_limits.go).
	JobMaxCount int
	// JobMaxSourceSize bounds a kept job source in bytes (0:
	// structs.DefaultJobMaxSourceSize; endpoints/job_submission.go).
	JobMaxSourceSize int
	// ClientIntroduction is the policy for new nodes (endpoints/node_auth.go).
	ClientIntroduction ClientIntroductionConfig
	// SnapshotRestoreMaxBytes caps a snapshot restore's decompressed size
	// (server/snapshot; 0: snapshot.DefaultRestoreMaxBytes).
	SnapshotRestoreMaxBytes int64
	// RPCLimits bounds connections on the RPC port (server/rpcserver).
	RPCLimits RPCLimits
	// DriverSchemas checks submitted jobs' drivers and driver config
	// (jobcheck.Prepare); the agent sets drivers/catalog.Builtin. nil:
	// driver names only, against the built-in names.
	DriverSchemas schema.Lookup
	// Autopilot is the autopilot configuration the leader stores when raft
	// holds none (the agent's autopilot block; nil: store nothing, Nomad's
	// defaults apply; autopilot_init.go).
	Autopilot *structs.AutopilotConfig
	// ACL is the ACL configuration (endpoints/acl_resolve.go); the zero
	// value is ACLs off. Its BootstrapResetFile defaults to DataDir's
	// server/acl-bootstrap-reset.
	ACL ACLConfig
	// GC is the leader's garbage collector's interval, thresholds and
	// batch size (server/gc; zero fields: Nomad's defaults; leader_gc.go).
	GC gc.Config
	// MetricsInterval is how often the leader publishes its gauges
	// (telemetry.collection_interval; leader_metrics.go). 0: 1 s.
	MetricsInterval time.Duration
	// DisableDispatchedJobSummaryMetrics leaves dispatched jobs out of the
	// job summary gauges (telemetry.disable_dispatched_job_summary_metrics).
	DisableDispatchedJobSummaryMetrics bool
	// EventBufferSize is how many raft indexes' events the event stream
	// keeps (server/events; Nomad's event_buffer_size); 0 disables it.
	EventBufferSize int
}

// ACLConfig is the servers' ACL configuration (endpoints.ACLConfig).
type ACLConfig = endpoints.ACLConfig

// aclBootstrapResetFile is the file, in the data dir, an operator writes a
// reset index to so that ACL.Bootstrap may run again (Nomad's name).
const aclBootstrapResetFile = "acl-bootstrap-reset"

// DefaultConfig returns a dev-friendly configuration.
func DefaultConfig() *Config {
	return &Config{
		Region: structs.DefaultRegion, Datacenter: "dc1", NodeName: "server",
		BootstrapExpect: 1, NumSchedulers: runtime.NumCPU(),
		HeartbeatGrace: 10 * time.Second, MinHeartbeatTTL: structs.MinHeartbeatTTL,
		MaxHeartbeatsPerSecond: heartbeat.DefaultMaxPerSecond,
		AllocUpdateBatch:       10 * time.Millisecond,
		EventBufferSize:        100, // Nomad's event_buffer_size
	}
}

func (c *Config) withDefaults() *Config {
	out := *c
	d := DefaultConfig()
	if out.Region == "" {
		out.Region = d.Region
	}
	if out.Datacenter == "" {
		out.Datacenter = d.Datacenter
	}
	if out.NodeName == "" {
		out.NodeName = d.NodeName
	}
	if out.NumSchedulers <= 0 {
		out.NumSchedulers = d.NumSchedulers
	}
	if out.HeartbeatGrace <= 0 {
		out.HeartbeatGrace = d.HeartbeatGrace
	}
	if out.MinHeartbeatTTL <= 0 {
		out.MinHeartbeatTTL = d.MinHeartbeatTTL
	}
	if out.MaxHeartbeatsPerSecond <= 0 {
		out.MaxHeartbeatsPerSecond = d.MaxHeartbeatsPerSecond
	}
	if out.AllocUpdateBatch <= 0 {
		out.AllocUpdateBatch = d.AllocUpdateBatch
	}
	if out.Logger == nil {
		out.Logger = hclog.NewNullLogger()
	}
	if out.Clock == nil {
		out.Clock = clock.Real{}
	}
	if out.MetricsInterval <= 0 {
		out.MetricsInterval = time.Second
	}
	return &out
}

// Validate checks the config.
func (c *Config) Validate() error {
	if !c.DevMode {
		if c.DataDir == "" {
			return fmt.Errorf("%w: data_dir is required outside dev mode", ErrConfig)
		}
		if c.RPCAddr == "" {
			return fmt.Errorf("%w: the rpc address is required outside dev mode", ErrConfig)
		}
		if c.BootstrapExpect < 1 {
			return fmt.Errorf("%w: bootstrap_expect must be at least 1 (got %d)", ErrConfig, c.BootstrapExpect)
		}
		if c.BootstrapExpect > 1 && c.Cluster.SerfAddr == "" {
			return fmt.Errorf("%w: bootstrap_expect = %d needs a serf address to find the other servers", ErrConfig, c.BootstrapExpect)
		}
	}
	if c.SnapshotRestoreMaxBytes < 0 {
		return fmt.Errorf("%w: snapshot_restore_max_bytes must not be negative", ErrConfig)
	}
	if err := c.ClientIntroduction.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return nil
}

// Server is one nomadish server.
type Server struct {
	cfg    *Config
	logger hclog.Logger
	// holdTimeout is how long a request waits for leadership (rpcHoldTimeout;
	// tests shorten it). Set before the server serves requests.
	holdTimeout time.Duration
	// advertise is the address peers and clients use (the raft address).
	advertise string

	fsm *fsm.FSM
	// cluster is raft and the serf membership (server/cluster); set in
	// NewServer before the RPC listener serves.
	cluster *cluster.Cluster
	// raftLayer carries raft over the RPC port (nil without a listener).
	raftLayer *cluster.StreamLayer

	// rpc is the RPC transport: listener, connections, method table,
	// dispatch and forwarding (server/rpcserver); set in NewServer.
	rpc *rpcserver.Server

	// restoring is held while the endpoint checks and applies a snapshot
	// archive (operator_raft.go); one at a time, a second gets
	// ErrSnapshotRestoreInProgress (the transport holds another flag while
	// it reads a restore's body).
	restoring atomic.Bool
	// health remembers since when each server is healthy (autopilot_health.go).
	health healthTracker

	broker     *broker.EvalBroker
	blocked    *broker.BlockedEvals
	planner    *planapply.Applier
	heartbeats *heartbeat.Timers
	// endpoints are the RPC endpoints (transport.go); set in NewServer.
	endpoints *endpoints.Set

	leaderNotifyCh chan bool
	leader         leaderState

	// nodeConns holds the clients' node tunnels (node_conns.go).
	nodeConns *nodeconn.Registry
	// keyring holds the root keys' material (keyring_leader.go).
	keyring *keyring.Keyring
	// gc serializes garbage collections and holds their time table
	// (leader_gc.go).
	gc gcState
	// events is the event stream's buffer (events_stream.go); nil when
	// disabled. Set in NewServer.
	events *events.Broker
	// httpConns serves RPCServerHTTP connections (events_stream.go); set by
	// the agent.
	httpConns atomic.Pointer[connHandler]

	shutdownMu sync.Mutex
	shutdown   bool
	shutdownCh chan struct{}
	wg         sync.WaitGroup
}

// NewServer starts a server: RPC listener, raft (bootstrapping a single
// server), the leadership monitor, and serf.
func NewServer(cfg *Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	s := &Server{
		cfg: cfg, logger: cfg.Logger.Named("server"), holdTimeout: rpcHoldTimeout,
		leaderNotifyCh: make(chan bool, 10), shutdownCh: make(chan struct{}),
	}
	s.leader.init()
	s.nodeConns = s.newNodeConns()
	var err error
	notifier := s.setupLeaderDuties() // leader.go
	if s.fsm, err = fsm.New(s.logger, notifier); err != nil {
		return nil, err
	}
	s.setupEvents()                                  // events_stream.go
	if s.keyring, err = s.newKeyring(); err != nil { // keyring_leader.go
		return nil, err
	}
	if err := s.setupTransport(); err != nil { // transport.go
		return nil, err
	}
	if s.cluster, err = cluster.New(cluster.Config{
		Region: cfg.Region, Datacenter: cfg.Datacenter, NodeName: cfg.NodeName, DataDir: cfg.DataDir,
		DevMode: cfg.DevMode, BootstrapExpect: cfg.BootstrapExpect, Advertise: s.advertise,
		Layer: s.raftLayer, Gossip: cfg.Cluster, Raft: cfg.Raft, FSM: s.fsm,
		LeaderNotify: s.leaderNotifyCh, Peers: s.rpc.Peers(), Logger: s.logger,
		Autopilot: s.autopilotConfig, StableSince: s.stableSince,
	}); err != nil {
		s.Shutdown()
		return nil, err
	}
	s.rpc.Serve() // raft's layer has its reader now
	s.wg.Add(2)
	go s.monitorLeadership()
	go s.replicateKeys() // keyring_leader.go
	if err := s.cluster.StartGossip(); err != nil {
		s.Shutdown()
		return nil, err
	}
	return s, nil
}

// Cluster is the server's raft node and serf membership: members, peers,
// the raft configuration and the gossip keyring.
func (s *Server) Cluster() *cluster.Cluster { return s.cluster }

// State returns the current state store. It changes after a raft snapshot
// restore; callers fetch it per use instead of keeping it.
func (s *Server) State() *state.StateStore { return s.fsm.State() }

// IsLeader reports whether this server is the raft leader.
func (s *Server) IsLeader() bool { return s.cluster != nil && s.cluster.IsLeader() }

// Leader returns the leader's RPC address, "" when unknown.
func (s *Server) Leader() string {
	if s.cluster == nil {
		return ""
	}
	return s.cluster.Leader()
}

// WaitForLeader blocks until this server has a leader with its leader
// duties running (single server: itself), or ctx ends.
func (s *Server) WaitForLeader(ctx context.Context) error {
	for {
		ch, ok := s.leader.ready()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for a leader: %w", ctx.Err())
		case <-s.shutdownCh:
			return errors.New("server: shut down while waiting for a leader")
		}
	}
}

// Shutdown stops leader duties, raft and the listener. Safe to call twice.
func (s *Server) Shutdown() error {
	s.shutdownMu.Lock()
	if s.shutdown {
		s.shutdownMu.Unlock()
		return nil
	}
	s.shutdown = true
	close(s.shutdownCh)
	s.shutdownMu.Unlock()

	var errs structs.MultiError
	s.nodeConns.Close()
	if s.events != nil {
		s.events.Close() // event streams end
	}
	s.rpc.StopAccepting() // forwarding connections and the listener
	if s.cluster != nil {
		errs.Add(s.cluster.Shutdown()) // serf, raft, then raft's transport and log
	}
	s.wg.Wait() // the leadership monitor revokes leadership on its way out
	s.revokeLeadership()
	if s.raftLayer != nil {
		s.raftLayer.Close()
	}
	s.rpc.Close() // the accept loop has ended; open connections close
	if s.endpoints != nil {
		s.endpoints.Stop()
	}
	return errs.ErrorOrNil()
}
