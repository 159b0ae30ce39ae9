package client

import (
	"errors"
	"fmt"
	"maps"

	"github.com/nomadish/nomadish/structs"
)

// ErrBadNodeMeta is a node metadata update with an empty key.
var ErrBadNodeMeta = errors.New("client: node metadata keys must not be empty")

// storedNodeMeta is the node's dynamic metadata as stored (nil values:
// unset keys), empty when unreadable (logged). Written by ApplyNodeMeta
// under nodeMu.
func (c *Client) storedNodeMeta() map[string]*string {
	if c.db == nil {
		return map[string]*string{}
	}
	dyn, err := c.db.NodeMeta()
	if err != nil {
		c.logger.Error("reading dynamic node metadata; starting without it", "error", err)
		return map[string]*string{}
	}
	return dyn
}

// mergeMeta is the node's metadata: static with dynamic over it (a nil
// dynamic value removes the key).
func mergeMeta(static map[string]string, dyn map[string]*string) map[string]string {
	out := maps.Clone(static)
	if out == nil {
		out = map[string]string{}
	}
	for k, v := range dyn {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = *v
		}
	}
	return out
}

// NodeMeta returns the node's metadata, the configuration's (static) and
// the applied (dynamic) parts. The caller owns the maps.
func (c *Client) NodeMeta() (*structs.NodeMetaResponse, error) {
	c.nodeMu.Lock()
	defer c.nodeMu.Unlock()
	dyn := c.storedNodeMeta()
	return &structs.NodeMetaResponse{Meta: maps.Clone(c.node.Meta), Dynamic: dyn, Static: maps.Clone(c.cfg.Meta)}, nil
}

// ApplyNodeMeta merges updates into the dynamic metadata (a nil value
// unsets the key, static ones too), stores it in the client state (it
// survives a restart), sets the node's metadata and has the node
// re-registered so the servers (and constraints on ${meta.*}) see it.
func (c *Client) ApplyNodeMeta(updates map[string]*string) (*structs.NodeMetaResponse, error) {
	for k := range updates {
		if k == "" {
			return nil, ErrBadNodeMeta
		}
	}
	c.nodeMu.Lock()
	dyn := c.storedNodeMeta()
	for k, v := range updates {
		dyn[k] = v
	}
	if c.db != nil {
		if err := c.db.PutNodeMeta(dyn); err != nil {
			c.nodeMu.Unlock()
			return nil, fmt.Errorf("storing dynamic node metadata: %w", err)
		}
	}
	c.node.Meta = mergeMeta(c.cfg.Meta, dyn)
	out := &structs.NodeMetaResponse{Meta: maps.Clone(c.node.Meta), Dynamic: dyn, Static: maps.Clone(c.cfg.Meta)}
	c.nodeMu.Unlock()
	select {
	case c.nodeChanged <- struct{}{}:
	default:
	}
	return out, nil
}
