package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/internal/clock"
	"github.com/nomadish/nomadish/internal/shared"
	"github.com/nomadish/nomadish/server/broker"
	"github.com/nomadish/nomadish/server/nodeconn"
	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Sentinel errors.
var (
	ErrConfig = errors.New("server: invalid config")
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
	// TLS, when set, is the RPC port's mutual TLS (rpc_tls.go).
	TLS *RPCTLSConfig
	// BootstrapExpect is how many servers must join (over serf) before raft
	// bootstraps with all of them as voters; 1 bootstraps alone at once.
	BootstrapExpect int
	// Cluster holds the serf membership settings (serf.go); without a
	// SerfAddr the server gossips with no one.
	Cluster ClusterConfig
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
	// Clock drives heartbeat timers (default: the wall clock).
	Clock clock.Clock
	// Raft holds the raft durability knobs (raft_config.go).
	Raft RaftConfig
	// JobMaxCount bounds a job's summed group counts on register, scale
	// and plan (0: structs.DefaultJobMaxCount; job_limits.go).
	JobMaxCount int
	// ClientIntroduction is the policy for new nodes (node_auth.go).
	ClientIntroduction ClientIntroductionConfig
	// SnapshotRestoreMaxBytes caps a snapshot restore's decompressed size
	// (snapshot_archive.go; 0: DefaultSnapshotRestoreMaxBytes).
	SnapshotRestoreMaxBytes int64
	// RPCLimits bounds connections on the RPC port (rpc_limits.go).
	RPCLimits RPCLimits
}

// DefaultConfig returns a dev-friendly configuration.
func DefaultConfig() *Config {
	return &Config{
		Region: structs.DefaultRegion, Datacenter: "dc1", NodeName: "server",
		BootstrapExpect: 1, NumSchedulers: runtime.NumCPU(),
		HeartbeatGrace: 10 * time.Second, MinHeartbeatTTL: structs.MinHeartbeatTTL,
		MaxHeartbeatsPerSecond: DefaultMaxHeartbeatsPerSecond,
		AllocUpdateBatch:       10 * time.Millisecond,
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
	return c.ClientIntroduction.Validate()
}

// Server is one nomadish server.
type Server struct {
	cfg    *Config
	logger hclog.Logger
	lists  shared.Cache // answers of list queries shared by concurrent readers (endpoint_job.go)
	// holdTimeout is how long a request waits for leadership (rpcHoldTimeout;
	// tests shorten it). Set before the server serves requests.
	holdTimeout time.Duration
	serverID    string
	// advertise is the address peers and clients use (the raft address).
	advertise string

	fsm           *fsm
	raft          *raft.Raft
	raftTransport raft.Transport
	raftBolt      io.Closer
	raftLayer     *raftLayer

	listener  net.Listener
	rpcServer *rpc.Server
	methods   map[string]rpcMethod // written once in NewServer
	connsMu   sync.Mutex
	conns     map[net.Conn]struct{} // guarded by connsMu; nil after shutdown

	// restoreReading is held while an Operator.SnapshotRestore request's
	// body is read from the RPC port (forward_serve.go); restoring while
	// the endpoint checks and applies an archive (endpoint_operator_raft.go).
	// One of each at a time: a second gets ErrSnapshotRestoreInProgress.
	restoreReading atomic.Bool
	restoring      atomic.Bool

	broker       *broker.EvalBroker
	blocked      *broker.BlockedEvals
	planner      *planapply.Applier
	heartbeats   *heartbeater
	allocUpdates *allocBatcher

	leaderNotifyCh chan bool
	leader         leaderState

	// cluster is the serf membership state (serf.go, membership.go).
	cluster clusterState
	// peers calls other servers (forward.go); set in NewServer.
	peers *peerPool
	// nodeConns holds the clients' node tunnels (node_conns.go).
	nodeConns *nodeconn.Registry

	shutdownMu sync.Mutex
	shutdown   bool
	shutdownCh chan struct{}
	wg         sync.WaitGroup
}

// NewServer starts a server: RPC listener, raft (bootstrapping a single
// server), and the leadership monitor.
func NewServer(cfg *Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	s := &Server{
		cfg: cfg, logger: cfg.Logger.Named("server"), holdTimeout: rpcHoldTimeout,
		leaderNotifyCh: make(chan bool, 10), shutdownCh: make(chan struct{}),
		conns: map[net.Conn]struct{}{}, peers: newPeerPool(outgoingTLS(cfg.TLS), cfg.Logger),
	}
	s.leader.init()
	s.nodeConns = s.newNodeConns()
	var err error
	if s.serverID, err = loadServerID(cfg.DataDir, cfg.DevMode); err != nil {
		return nil, err
	}
	if s.fsm, err = newFSM(s.logger); err != nil {
		return nil, err
	}
	s.setupLeaderDuties()
	if err := s.registerEndpoints(); err != nil {
		return nil, err
	}
	if err := s.setupListener(); err != nil {
		return nil, err
	}
	if err := s.setupRaft(); err != nil {
		s.Shutdown()
		return nil, err
	}
	s.wg.Add(1)
	go s.monitorLeadership()
	if err := s.setupSerf(); err != nil {
		s.Shutdown()
		return nil, err
	}
	return s, nil
}

// setupListener opens the RPC port (if any) and settles the advertised
// address.
func (s *Server) setupListener() error {
	if s.cfg.RPCAddr == "" {
		s.advertise = s.cfg.RPCAdvertise
		if s.advertise == "" {
			s.advertise = "127.0.0.1:4647"
		}
		return nil
	}
	ln, err := net.Listen("tcp", s.cfg.RPCAddr)
	if err != nil {
		return fmt.Errorf("listening for RPC on %s: %w", s.cfg.RPCAddr, err)
	}
	s.listener = ln
	s.advertise = s.cfg.RPCAdvertise
	if s.advertise == "" {
		s.advertise = ln.Addr().String()
	}
	adv, err := net.ResolveTCPAddr("tcp", s.advertise)
	if err != nil {
		ln.Close()
		return fmt.Errorf("resolving rpc advertise address %q: %w", s.advertise, err)
	}
	if adv.IP == nil || adv.IP.IsUnspecified() {
		ln.Close()
		return fmt.Errorf("%w: rpc advertise address %q is not reachable by peers; set advertise", ErrConfig, s.advertise)
	}
	s.raftLayer = newRaftLayer(adv, s.cfg.TLS)
	s.wg.Add(1)
	go s.serveListener()
	return nil
}

// RPCAddr returns the address the RPC listener is bound to ("" without one).
func (s *Server) RPCAddr() string {
	if s.listener == nil {
		return ""
	}
	return s.listener.Addr().String()
}

// State returns the current state store. It changes after a raft snapshot
// restore; callers fetch it per use instead of keeping it.
func (s *Server) State() *state.StateStore { return s.fsm.State() }

// IsLeader reports whether this server is the raft leader.
func (s *Server) IsLeader() bool { return s.raft != nil && s.raft.State() == raft.Leader }

// Leader returns the leader's RPC address, "" when unknown.
func (s *Server) Leader() string {
	if s.raft == nil {
		return ""
	}
	addr, _ := s.raft.LeaderWithID()
	return string(addr)
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
	errs.Add(s.shutdownSerf())
	s.peers.close()
	s.nodeConns.Close()
	if s.listener != nil {
		s.listener.Close()
	}
	if s.raft != nil {
		errs.Add(s.raft.Shutdown().Error())
	}
	s.wg.Wait() // the leadership monitor revokes leadership on its way out
	s.revokeLeadership()
	if s.raftLayer != nil {
		s.raftLayer.Close()
	}
	if c, ok := s.raftTransport.(io.Closer); ok {
		errs.Add(c.Close())
	}
	if s.raftBolt != nil {
		errs.Add(s.raftBolt.Close())
	}
	s.closeConns()
	s.allocUpdates.stop()
	return errs.ErrorOrNil()
}
