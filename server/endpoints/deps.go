package endpoints

import (
	"errors"
	"fmt"
	"time"

	"github.com/nomadish/nomadish/drivers/schema"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/internal/clock"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// ErrDeps is returned by New when a required dependency is missing.
var ErrDeps = errors.New("endpoints: missing dependency")

// ApplyFunc commits one raft entry of type t and returns its index and the
// FSM's response; it fails with structs.ErrNoLeader off the leader.
type ApplyFunc func(t structs.MessageType, msg any) (index uint64, resp any, err error)

// Heartbeats are the leader's node TTL timers (Node.Register and
// Node.UpdateStatus reset them, a node going down stops its own).
type Heartbeats interface {
	// Reset (re)starts nodeID's timer and returns the TTL handed to the
	// client, sized for numNodes nodes.
	Reset(nodeID string, numNodes int) time.Duration
	// Remove stops nodeID's timer.
	Remove(nodeID string)
}

// Cluster is what the Status and Operator raft RPCs need of the server's
// raft configuration, serf membership and snapshots. The server
// implements it; every method runs on the calling RPC's goroutine.
type Cluster interface {
	// RaftServers lists the latest raft configuration (committed or not),
	// named and with the leader marked, and its index. Errors are raft's.
	RaftServers() (servers []*structs.RaftServer, index uint64, err error)
	// Members lists the servers serf knows.
	Members() *structs.ServerMembersResponse
	// RemoveRaftPeer removes the first raft server match accepts (on the
	// leader): the entry's index, or found false when none matches.
	RemoveRaftPeer(match func(*structs.RaftServer) bool) (index uint64, found bool, err error)
	// SaveSnapshot returns a snapshot archive holding every entry
	// committed before the call, and its index.
	SaveSnapshot() (archive []byte, index uint64, err error)
	// RestoreSnapshot replaces the cluster's state with archive's and
	// returns the index after it; a bad archive is a 400 coded error.
	RestoreSnapshot(archive []byte) (index uint64, err error)
}

// Limits are the server's configured bounds that endpoints enforce.
type Limits struct {
	// JobMaxCount bounds a job's summed group counts on register, scale
	// and plan (0: structs.DefaultJobMaxCount; job_limits.go).
	JobMaxCount int
	// ClientIntroduction is the policy for new nodes (node_auth.go).
	ClientIntroduction ClientIntroductionConfig
	// JobMaxSourceSize bounds a submitted job source in bytes (0:
	// structs.DefaultJobMaxSourceSize); job_submission.go.
	JobMaxSourceSize int
	// AllocUpdateBatch is how long client alloc updates are gathered into
	// one raft entry (alloc_batch.go).
	AllocUpdateBatch time.Duration
}

// Deps is everything the endpoints use of the server: no endpoint holds
// the server itself. The function fields are called from RPC goroutines
// and must be safe for concurrent use; they read the server's current
// values at each call (the state store changes after a snapshot restore,
// raft and the advertised address are set after the endpoints are built).
type Deps struct {
	// State returns the current state store; callers fetch it per use.
	State func() *state.StateStore
	// Apply commits through raft.
	Apply ApplyFunc
	// WaitForLeader waits (up to the RPC hold timeout) for this server's
	// leader duties to run; false when they do not (reads that are not
	// stale answer ErrNoLeader then).
	WaitForLeader func() bool
	// Leader returns the leader's RPC address, "" when unknown.
	Leader func() string
	// LastContact is how long ago this server heard from the leader (0 on
	// the leader).
	LastContact func() time.Duration
	// NodeServers returns the leader's RPC address and the server list
	// handed to clients in Node.Register and heartbeat replies.
	NodeServers func() (leader string, servers []*structs.NodeServerInfo)
	// Recover turns a panic into a logged 500 coded error in *err; the
	// alloc batcher defers it on its timer goroutine (the RPC dispatch
	// already does for the endpoints).
	Recover func(method string, err *error)
	// Shutdown is closed when the server shuts down; blocking queries
	// answer at once then.
	Shutdown <-chan struct{}

	Heartbeats Heartbeats
	Cluster    Cluster
	// Clock stamps every time written into state (eval, node, deployment
	// and alloc times). The alloc-update batch window stays on wall time:
	// it bounds how long a Node.UpdateAlloc reply waits, like the RPC hold
	// timeout, and writes no time.
	Clock  clock.Clock
	Logger hclog.Logger
	Limits Limits
	// DriverSchemas checks submitted jobs' drivers and driver config
	// (jobcheck.Prepare); nil checks driver names only.
	DriverSchemas schema.Lookup
	// ACL is the ACL configuration (acl_resolve.go); the zero value is
	// ACLs off: every request is allowed, as before ACLs existed.
	ACL ACLConfig
	// Keyring holds the root keys variables are encrypted with (nil: the
	// Variables and Keyring endpoints answer 500).
	Keyring RootKeyring
	// ForceGC runs one garbage collection with every threshold at zero,
	// on the leader (System.GarbageCollect; nil: the RPC answers 500).
	ForceGC func() (*structs.GCReapResponse, error)
}

// ACLConfig is the server's ACL configuration.
type ACLConfig struct {
	// Enabled turns token resolution and enforcement on.
	Enabled bool
	// TokenMinExpirationTTL and TokenMaxExpirationTTL bound a new token's
	// expiration (0: 1 minute and 24 hours, Nomad's defaults).
	TokenMinExpirationTTL time.Duration
	TokenMaxExpirationTTL time.Duration
	// BootstrapResetFile is the path of the file an operator writes the
	// reset index to, to bootstrap again ("" : no reset possible).
	BootstrapResetFile string
}

func (d *Deps) validate() error {
	switch {
	case d.State == nil, d.Apply == nil, d.WaitForLeader == nil, d.Leader == nil, d.LastContact == nil,
		d.NodeServers == nil, d.Recover == nil, d.Shutdown == nil:
		return fmt.Errorf("%w: a function or the shutdown channel is nil", ErrDeps)
	case d.Heartbeats == nil || d.Cluster == nil || d.Clock == nil || d.Logger == nil:
		return fmt.Errorf("%w: heartbeats, cluster, clock or logger is nil", ErrDeps)
	}
	return nil
}
