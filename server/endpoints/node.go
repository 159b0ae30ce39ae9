package endpoints

import (
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/server/paginate"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Node serves the Node.* RPCs.
type Node struct {
	d            *Deps
	allocUpdates *allocBatcher // Node.UpdateAlloc's batches (alloc_batch.go)
	nodes        nodeCount     // the node count heartbeat TTLs need (node_count.go)
}

// Register registers or re-registers a node as ready, starts its heartbeat
// timer and, when the node becomes ready, creates node-update evals for the
// jobs with allocations on it (blocked evals are unblocked by the state
// store's capacity event). A known node ID re-registers only with its
// stored SecretID (ErrNodeSecretMismatch otherwise, also enforced by the
// state store against races); a new one passes the client introduction
// policy (node_auth.go) with args.AuthToken.
func (e *Node) Register(args *structs.NodeRegisterRequest, reply *structs.NodeUpdateResponse) error {
	n := args.Node
	switch {
	case n == nil:
		return structs.NewCodedError(structs.ErrCodeBadRequest, "missing node")
	case n.ID == "":
		return structs.NewCodedError(structs.ErrCodeBadRequest, "missing node ID")
	case n.SecretID == "":
		return structs.NewCodedError(structs.ErrCodeBadRequest, "missing node secret ID")
	}
	if err := n.ValidateBounds(); err != nil { // structs/node_bounds.go
		return structs.NewCodedError(structs.ErrCodeBadRequest, "invalid node: %v", err)
	}
	st := e.d.State()
	existing, err := st.NodeByID(nil, n.ID)
	if err != nil {
		return err
	}
	if existing != nil {
		if err := AuthenticateNode(existing, n.SecretID); err != nil {
			return err
		}
	} else if err := introduceNode(e.d.Limits.ClientIntroduction, e.d.Logger, n, args.AuthToken); err != nil {
		return err
	}
	node := n.Copy()
	node.ComputeClass()
	node.Status = structs.NodeStatusReady
	node.StatusUpdatedAt = e.d.Clock.Now().UnixNano()
	index, _, err := e.d.Apply(structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: node})
	if err != nil {
		return err
	}
	if existing == nil || existing.Status != structs.NodeStatusReady {
		ids, evalIndex, err := e.d.createNodeEvals(node.ID, index)
		if err != nil {
			return err
		}
		reply.EvalIDs, reply.EvalCreateIndex = ids, evalIndex
	}
	return e.fillNodeReply(node.ID, index, reply)
}

// fillNodeReply resets the node's heartbeat timer and fills the reply.
func (e *Node) fillNodeReply(nodeID string, index uint64, reply *structs.NodeUpdateResponse) error {
	d := e.d
	n, err := e.nodes.get(d.State())
	if err != nil {
		return err
	}
	reply.HeartbeatTTL = d.Heartbeats.Reset(nodeID, n)
	reply.NodeModifyIndex = index
	reply.LeaderRPCAddr, reply.Servers = d.NodeServers()
	reply.NumNodes = int32(n)
	reply.Index = index
	reply.KnownLeader = true
	return nil
}

// UpdateStatus is the client heartbeat (and status change): it resets the
// node's TTL and returns it. It must carry the node's SecretID (AuthToken or
// SecretID): ErrNodeSecretMismatch otherwise, and nothing changes. A change of status goes through raft; a node
// coming back ready gets node-update evals.
func (e *Node) UpdateStatus(args *structs.NodeUpdateStatusRequest, reply *structs.NodeUpdateResponse) error {
	if args.NodeID == "" {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "missing node ID")
	}
	switch args.Status {
	case "", structs.NodeStatusInit, structs.NodeStatusReady, structs.NodeStatusDown:
	default:
		return structs.NewCodedError(structs.ErrCodeBadRequest, "invalid node status %q", args.Status)
	}
	node, err := e.d.State().NodeByID(nil, args.NodeID)
	if err != nil {
		return err
	}
	if err := AuthenticateNode(node, nodeSecret(args.AuthToken, args.SecretID)); err != nil {
		return err
	}
	index := node.ModifyIndex
	if args.Status != "" && args.Status != node.Status {
		req := &structs.NodeUpdateStatusRequest{NodeID: node.ID, Status: args.Status, UpdatedAt: e.d.Clock.Now().UnixNano()}
		if index, _, err = e.d.Apply(structs.NodeUpdateStatusRequestType, req); err != nil {
			return err
		}
		if args.Status == structs.NodeStatusReady || args.Status == structs.NodeStatusDown {
			ids, evalIndex, err := e.d.createNodeEvals(node.ID, index)
			if err != nil {
				return err
			}
			reply.EvalIDs, reply.EvalCreateIndex = ids, evalIndex
		}
	}
	if args.Status == structs.NodeStatusDown {
		e.d.Heartbeats.Remove(node.ID)
		reply.NodeModifyIndex, reply.Index = index, index
		return nil
	}
	return e.fillNodeReply(node.ID, index, reply)
}

// GetClientAllocs returns the node's allocation IDs with their
// AllocModifyIndex; blocking. The index is the highest AllocModifyIndex, or
// the latest garbage collection of one of its allocations if later (the
// allocs table index when the node has none), so client status
// reports do not wake the client's own watch. The node's SecretID must
// come with it (AuthToken or SecretID): ErrNodeSecretMismatch otherwise.
// MigrateTokens carries the migrate tokens of its migrating allocations.
func (e *Node) GetClientAllocs(args *structs.NodeSpecificRequest, reply *structs.NodeClientAllocsResponse) error {
	err := e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		node, err := st.NodeByID(ws, args.NodeID)
		if err != nil {
			return 0, err
		}
		if err := AuthenticateNode(node, nodeSecret(args.AuthToken, args.SecretID)); err != nil {
			return 0, err
		}
		// The node's row moves only when the server changes one of its
		// allocations (or deletes one): a client's own status report does
		// not wake this query, and a wake-up with nothing new for the
		// client lists nothing (reply.Allocs stays nil: see below).
		at, err := st.NodeAllocsIndex(ws, args.NodeID)
		if err != nil {
			return 0, err
		}
		if args.MinQueryIndex > 0 && at > 0 && at <= args.MinQueryIndex {
			reply.Allocs, reply.MigrateTokens = nil, nil
			return at, nil
		}
		return clientAllocs(st, args.NodeID, reply)
	})
	if err != nil || reply.Allocs != nil {
		return err
	}
	// The wait ended (its time was up) on a run that listed nothing: the
	// answer is always the node's whole map, or the client would take the
	// missing allocations for removed ones and destroy them.
	idx, err := clientAllocs(e.d.State().Snapshot(), args.NodeID, reply)
	reply.Index = max(idx, 1)
	return err
}

// clientAllocs fills reply with the node's allocations (ID to
// AllocModifyIndex) and its migrate tokens, and returns the index the
// answer stands for.
func clientAllocs(st *state.StateSnapshot, nodeID string, reply *structs.NodeClientAllocsResponse) (uint64, error) {
	reply.Allocs = map[string]uint64{}
	var index uint64
	var migrating []*structs.Allocation
	if err := st.EachAllocOnNode(nodeID, func(a *structs.Allocation) {
		reply.Allocs[a.ID] = a.AllocModifyIndex
		index = max(index, a.AllocModifyIndex)
		if shouldMigrate(a) {
			migrating = append(migrating, a)
		}
	}); err != nil {
		return 0, err
	}
	var err error
	if reply.MigrateTokens, err = migrateTokens(st, migrating); err != nil { // node_migrate.go
		return 0, err
	}
	if len(reply.Allocs) == 0 {
		return st.Index(state.TableAllocs)
	}
	// A garbage-collected allocation lowers nothing above: answer the
	// deletion's index too, or the client would never hear of it.
	removed, err := st.NodeAllocsRemovedIndex(nodeID)
	if err != nil {
		return 0, err
	}
	return max(index, removed), nil
}

// UpdateAlloc takes client status reports. Reports are batched for
// AllocUpdateBatch into one raft entry; the call returns once its batch is
// committed. The request's AuthToken must be the SecretID of the node the
// reported allocations are placed on: a missing or wrong secret, or any
// allocation of another node, refuses the whole request (403) and changes
// nothing; reports for allocations the state no longer holds are dropped.
func (e *Node) UpdateAlloc(args *structs.AllocUpdateRequest, reply *structs.GenericResponse) error {
	if len(args.Alloc) == 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "no allocations to update")
	}
	allocs, err := authorizeAllocUpdates(e.d.State(), args.Alloc, args.AuthToken)
	if err != nil {
		return err
	}
	if len(allocs) == 0 {
		return nil
	}
	f := e.allocUpdates.add(allocs)
	<-f.done
	if f.err != nil {
		return f.err
	}
	reply.Index = f.index
	return nil
}

// GetNode reads one node (nil when absent); blocking. The reply carries
// the node's SecretID only when the request carries it (AuthToken or
// SecretID): the node itself; anyone else gets it blank.
//
// With ACLs on it needs node read, or the node's own secret.
func (e *Node) GetNode(args *structs.NodeSpecificRequest, reply *structs.SingleNodeResponse) error {
	secret := nodeSecret(args.AuthToken, args.SecretID)
	a, token, aclErr := e.d.ResolveToken(args.AuthToken) // a node secret is no ACL token: checked below
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		node, err := st.NodeByID(ws, args.NodeID)
		if err != nil {
			return 0, err
		}
		if node == nil || !node.SecretMatches(secret) {
			if aclErr != nil {
				return 0, aclErr
			}
			if !a.AllowNodeRead() {
				return 0, e.d.denied(token.AccessorID, "", "node read")
			}
		}
		reply.Node = node
		if !node.SecretMatches(nodeSecret(args.AuthToken, args.SecretID)) {
			reply.Node = node.Sanitized()
		}
		if node != nil {
			return node.ModifyIndex, nil
		}
		return st.Index(state.TableNodes)
	})
}

// List lists nodes (ID prefix filter); blocking.
func (e *Node) List(args *structs.NodeListRequest, reply *structs.NodeListResponse) error {
	if err := e.d.allowLevel(args.AuthToken, "node read", (*acl.ACL).AllowNodeRead); err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableNodes}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		nodes, err := st.Nodes(ws)
		if err != nil {
			return 0, err
		}
		reply.Nodes = make([]*structs.NodeListStub, 0, len(nodes))
		for _, n := range nodes {
			if len(args.Prefix) <= len(n.ID) && n.ID[:len(args.Prefix)] == args.Prefix {
				stub := n.Stub()
				if args.Fields != nil && args.Fields.Resources {
					stub.NodeResources, stub.ReservedResources = n.NodeResources, n.ReservedResources
				}
				reply.Nodes = append(reply.Nodes, stub)
			}
		}
		if reply.Nodes, err = pageList(reply.Nodes, paginate.ByID, nodeKey, &args.QueryOptions, &reply.QueryMeta); err != nil {
			return 0, err
		}
		return st.Index(state.TableNodes)
	})
}
