package cluster

import (
	"fmt"

	"github.com/hashicorp/serf/serf"

	"github.com/nomadish/nomadish/structs"
)

// KeyringResponse is a keyring operation's answer across the servers
// (Nomad's api.KeyringResponse).
type KeyringResponse struct {
	Messages map[string]string // member name -> error it reported
	Keys     map[string]int    // base64 key -> how many members hold it
	NumNodes int
}

// Keyring operations.
const (
	KeyringList    = "list"
	KeyringInstall = "install"
	KeyringUse     = "use"
	KeyringRemove  = "remove"
)

// KeyringOp runs a gossip keyring operation (list, install, use, remove)
// on every server through serf queries. A bad key or operation is a 400
// coded error; members that failed are listed in Messages and make the
// call fail with a 500 coded error naming how many failed, as Nomad.
// Without gossip: ErrNoSerf.
func (c *Cluster) KeyringOp(op, key string) (*KeyringResponse, error) {
	if c.serf == nil {
		return nil, ErrNoSerf
	}
	if op != KeyringList {
		if _, err := decodeGossipKey(key); err != nil {
			return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "%v", err)
		}
	}
	km := c.serf.KeyManager()
	var (
		r   *serf.KeyResponse
		err error
	)
	switch op {
	case KeyringList:
		r, err = km.ListKeys()
	case KeyringInstall:
		r, err = km.InstallKey(key)
	case KeyringUse:
		r, err = km.UseKey(key)
	case KeyringRemove:
		r, err = km.RemoveKey(key)
	default:
		return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "unknown keyring operation %q", op)
	}
	if r == nil {
		return nil, fmt.Errorf("keyring %s: %w", op, err)
	}
	out := &KeyringResponse{Messages: r.Messages, Keys: r.Keys, NumNodes: r.NumNodes}
	if err != nil {
		return out, structs.NewCodedError(structs.ErrCodeInternal, "keyring %s: %d of %d servers failed: %v", op, r.NumErr, r.NumNodes, err)
	}
	return out, nil
}

// ForceLeave marks a failed server as left in serf, so the leader removes
// it from raft at once. Without gossip: ErrNoSerf.
func (c *Cluster) ForceLeave(name string) error {
	if c.serf == nil {
		return ErrNoSerf
	}
	return c.serf.RemoveFailedNode(name)
}
