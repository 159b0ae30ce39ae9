package planapply

import (
	"errors"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nomadish/nomadish/structs"
)

// Sentinel errors.
var (
	// ErrStopped is returned by Submit for plans still queued when Run
	// returns (leadership lost).
	ErrStopped = errors.New("planapply: plan applier stopped")
)

// StateSource gives the newest committed state.
type StateSource interface {
	Snapshot() (Snapshot, error)
}

// Snapshot is the read view the fit check needs.
type Snapshot interface {
	NodeByID(id string) (*structs.Node, error)                     // nil, nil when absent
	LiveAllocsByNode(nodeID string) ([]*structs.Allocation, error) // non-terminal only: the fit check
	AllocsByNode(nodeID string) ([]*structs.Allocation, error)     // incl. terminal
	LatestIndex() (uint64, error)
}

// Committer applies a plan result through raft. It must return only once
// the entry is applied to the state StateSource reads, so the next plan's
// snapshot sees it (raft's ApplyFuture.Error on the leader does).
type Committer interface {
	ApplyPlanResults(req *structs.ApplyPlanResultsRequest) (index uint64, err error)
}

// Config configures an Applier.
type Config struct {
	State  StateSource
	Commit Committer
	Logger hclog.Logger
	// Now stamps UpdatedAt of committed results; nil means time.Now.
	Now func() time.Time
}
