package structs

import (
	"fmt"
	"regexp"
)

// Node pool RPC methods.
const (
	NodePoolUpsertRPC    = "NodePool.UpsertNodePools"
	NodePoolDeleteRPC    = "NodePool.DeleteNodePools"
	NodePoolListRPC      = "NodePool.List"
	NodePoolGetRPC       = "NodePool.GetNodePool"
	NodePoolListJobsRPC  = "NodePool.ListJobs"
	NodePoolListNodesRPC = "NodePool.ListNodes"
)

// The built-in node pools NodePoolDefault (every node without one) and
// NodePoolAll (every node) can be neither changed nor deleted.

var validNodePoolName = regexp.MustCompile(`^[a-zA-Z0-9-_]{1,128}$`)

// NodePool groups client nodes; a job's node_pool restricts its placements
// to the pool's nodes (Nomad's JSON shape).
type NodePool struct {
	Name                   string
	Description            string
	Meta                   map[string]string
	SchedulerConfiguration *NodePoolSchedulerConfiguration `json:",omitempty"`
	CreateIndex            uint64
	ModifyIndex            uint64
}

// NodePoolSchedulerConfiguration overrides the cluster's scheduler
// configuration for the jobs of a pool ("" and nil: the cluster's).
type NodePoolSchedulerConfiguration struct {
	SchedulerAlgorithm            string `json:",omitempty"`
	MemoryOversubscriptionEnabled *bool  `json:",omitempty"`
}

// BuiltinNodePool returns the built-in pool name, or nil when name is not
// built in.
func BuiltinNodePool(name string) *NodePool {
	switch name {
	case NodePoolDefault:
		return &NodePool{Name: NodePoolDefault, Description: "Default node pool"}
	case NodePoolAll:
		return &NodePool{Name: NodePoolAll, Description: "Node pool with all nodes in the cluster"}
	}
	return nil
}

// IsBuiltinNodePool reports whether name is "default" or "all".
func IsBuiltinNodePool(name string) bool { return name == NodePoolDefault || name == NodePoolAll }

// Validate checks a pool submitted for upsert.
func (p *NodePool) Validate() error {
	if p == nil {
		return fmt.Errorf("node pool is missing")
	}
	if !validNodePoolName.MatchString(p.Name) {
		return fmt.Errorf("invalid node pool name %q: must match %s", p.Name, validNodePoolName)
	}
	if len(p.Description) > 256 {
		return fmt.Errorf("node pool %q: description longer than 256 characters", p.Name)
	}
	if c := p.SchedulerConfiguration; c != nil {
		switch c.SchedulerAlgorithm {
		case "", SchedulerAlgorithmBinpack, SchedulerAlgorithmSpread:
		default:
			return fmt.Errorf("node pool %q: invalid scheduler algorithm %q (want %q or %q)",
				p.Name, c.SchedulerAlgorithm, SchedulerAlgorithmBinpack, SchedulerAlgorithmSpread)
		}
	}
	return nil
}

// Copy returns a deep copy.
func (p *NodePool) Copy() *NodePool {
	if p == nil {
		return nil
	}
	c := *p
	if p.Meta != nil {
		c.Meta = make(map[string]string, len(p.Meta))
		for k, v := range p.Meta {
			c.Meta[k] = v
		}
	}
	if p.SchedulerConfiguration != nil {
		sc := *p.SchedulerConfiguration
		if sc.MemoryOversubscriptionEnabled != nil {
			b := *sc.MemoryOversubscriptionEnabled
			sc.MemoryOversubscriptionEnabled = &b
		}
		c.SchedulerConfiguration = &sc
	}
	return &c
}

// ApplyTo returns cfg with the pool's overrides applied (cfg itself when
// the pool has none). cfg is not modified.
func (p *NodePool) ApplyTo(cfg *SchedulerConfiguration) *SchedulerConfiguration {
	if p == nil || p.SchedulerConfiguration == nil || cfg == nil {
		return cfg
	}
	sc := p.SchedulerConfiguration
	if sc.SchedulerAlgorithm == "" && sc.MemoryOversubscriptionEnabled == nil {
		return cfg
	}
	out := cfg.Copy()
	if sc.SchedulerAlgorithm != "" {
		out.SchedulerAlgorithm = sc.SchedulerAlgorithm
	}
	if sc.MemoryOversubscriptionEnabled != nil {
		out.MemoryOversubscriptionEnabled = *sc.MemoryOversubscriptionEnabled
	}
	return out
}

// NodePoolUpsertRequest creates or updates pools (NodePool.UpsertNodePools;
// also the raft entry).
type NodePoolUpsertRequest struct {
	NodePools []*NodePool
	WriteRequest
}

// NodePoolDeleteRequest deletes pools (NodePool.DeleteNodePools; also the
// raft entry).
type NodePoolDeleteRequest struct {
	Names []string
	WriteRequest
}

// NodePoolListRequest lists pools (Prefix filters by name).
type NodePoolListRequest struct {
	QueryOptions
}

// NodePoolListResponse answers NodePool.List, sorted by name.
type NodePoolListResponse struct {
	NodePools []*NodePool
	QueryMeta
}

// NodePoolSpecificRequest names one pool.
type NodePoolSpecificRequest struct {
	Name string
	QueryOptions
}

// SingleNodePoolResponse answers NodePool.GetNodePool (nil: absent).
type SingleNodePoolResponse struct {
	NodePool *NodePool
	QueryMeta
}

// NodePoolJobsResponse answers NodePool.ListJobs.
type NodePoolJobsResponse struct {
	Jobs []*JobListStub
	QueryMeta
}

// NodePoolNodesResponse answers NodePool.ListNodes.
type NodePoolNodesResponse struct {
	Nodes []*NodeListStub
	QueryMeta
}
