package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

func nodesSchema() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableNodes,
		Indexes: map[string]*memdb.IndexSchema{
			"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "ID"}},
			// by sha256 of the node's secret (acl_tables.go): NodeBySecretID
			"secret": {Name: "secret", AllowMissing: true, Indexer: secretHashIndex{}},
		},
	}
}

// UpsertNode registers or re-registers a node at index. Capacity changes when
// the node is ready and new, newly ready, or changed in what placement reads
// (nodeCapacityChanged): a client re-registering an unchanged node does not
// wake every blocked eval.
// Re-registering with another SecretID than the stored one is
// structs.ErrNodeSecretMismatch and changes nothing.
func (s *StateStore) UpsertNode(index uint64, node *structs.Node) error {
	txn := s.writeTxn()
	defer txn.Abort()
	existing, err := txn.First(tableNodes, "id", node.ID)
	if err != nil {
		return fmt.Errorf("looking up node %q: %w", node.ID, err)
	}
	var old *structs.Node
	if existing != nil {
		old = existing.(*structs.Node)
		// A node's secret never changes (Node.Register checks it; this
		// holds it against concurrent registrations of one ID).
		if old.SecretID != "" && old.SecretID != node.SecretID {
			return structs.ErrNodeSecretMismatch
		}
		node.CreateIndex = old.CreateIndex
		keepServerNodeFields(node, old)
	} else {
		node.CreateIndex = index
	}
	node.ModifyIndex = index
	if node.SchedulingEligibility == "" {
		node.SchedulingEligibility = structs.NodeSchedulingEligible
	}
	if err := txn.Insert(tableNodes, node); err != nil {
		return fmt.Errorf("inserting node %q: %w", node.ID, err)
	}
	// A node registering in an unknown pool creates it (as Nomad does).
	if err := ensureNodePoolTxn(txn, index, node.NodePool); err != nil {
		return err
	}
	if err := setIndex(txn, tableNodes, index); err != nil {
		return err
	}
	c := &changes{event: structs.TypeNodeRegistration}
	return s.commit(txn, index, c.capacityIf(nodeCapacityChanged(old, node), node))
}

// UpdateNodeStatus sets a node's status at index (heartbeat expiry,
// re-heartbeat after down). updatedAt is unix nanoseconds.
func (s *StateStore) UpdateNodeStatus(index uint64, nodeID, status string, updatedAt int64) error {
	txn := s.writeTxn()
	defer txn.Abort()
	raw, err := txn.First(tableNodes, "id", nodeID)
	if err != nil {
		return fmt.Errorf("looking up node %q: %w", nodeID, err)
	}
	if raw == nil {
		return fmt.Errorf("updating status of node %q: %w", nodeID, structs.ErrNodeNotFound)
	}
	cp := *raw.(*structs.Node) // shallow: only top-level fields change
	node := &cp
	node.Status = status
	node.StatusUpdatedAt = updatedAt
	node.ModifyIndex = index
	if err := txn.Insert(tableNodes, node); err != nil {
		return fmt.Errorf("updating node %q: %w", nodeID, err)
	}
	if err := setIndex(txn, tableNodes, index); err != nil {
		return err
	}
	// A node gone down takes its services with it (service_registrations.go).
	if status == structs.NodeStatusDown {
		if err := deleteServicesOfTxn(txn, index, "node_id", nodeID); err != nil {
			return err
		}
	}
	return s.commit(txn, index, (&changes{}).capacityIf(node.Ready(), node))
}

// DeleteNode removes a node at index; unknown nodes are ignored.
func (s *StateStore) DeleteNode(index uint64, nodeID string) error {
	txn := s.writeTxn()
	defer txn.Abort()
	if _, err := txn.DeleteAll(tableNodes, "id", nodeID); err != nil {
		return fmt.Errorf("deleting node %q: %w", nodeID, err)
	}
	if err := forgetNodeRowTxn(txn, nodeID); err != nil {
		return err
	}
	if err := setIndex(txn, tableNodes, index); err != nil {
		return err
	}
	if err := deleteServicesOfTxn(txn, index, "node_id", nodeID); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

// NodeByID returns the node or nil.
func (r reader) NodeByID(ws memdb.WatchSet, id string) (*structs.Node, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableNodes, "id", id)
	if err != nil {
		return nil, fmt.Errorf("looking up node %q: %w", id, err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.Node), nil
}

// NodeBySecretID returns the node whose secret is secret, or nil; looked
// up through a hash of the secret and compared in constant time.
func (r reader) NodeBySecretID(ws memdb.WatchSet, secret string) (*structs.Node, error) {
	if secret == "" {
		return nil, nil
	}
	txn := r.db.Txn(false)
	it, err := txn.Get(tableNodes, "secret", secret)
	if err != nil {
		return nil, fmt.Errorf("looking up a node by secret: %w", err)
	}
	ws.Add(it.WatchCh())
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if n := raw.(*structs.Node); n.SecretMatches(secret) {
			return n, nil
		}
	}
	return nil, nil
}

// Nodes returns all nodes ordered by ID.
func (r reader) Nodes(ws memdb.WatchSet) ([]*structs.Node, error) {
	txn := r.db.Txn(false)
	it, err := txn.Get(tableNodes, "id")
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.Node
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*structs.Node))
	}
	return out, nil
}
