package state

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// tableServiceRegistrations holds Nomad-native service registrations: one
// row per live instance of a service (an allocation's service on a port),
// written by the clients through ServiceRegistration.Upsert.
const tableServiceRegistrations = "service_registrations"

// TableServiceRegistrations is the table name for Index and WatchTables.
const TableServiceRegistrations = tableServiceRegistrations

// recordServiceRegistration is its record type in persisted snapshots
// (100..109 are the services').
const recordServiceRegistration recordType = 100

func serviceRegistrationsSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableServiceRegistrations, Indexes: map[string]*memdb.IndexSchema{
		"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "ID"}},
		// (namespace, service name); ("ns", "") lists a namespace.
		"service_name": {Name: "service_name", Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
			&memdb.StringFieldIndex{Field: "Namespace"},
			&memdb.StringFieldIndex{Field: "ServiceName"},
		}}},
		"alloc_id": {Name: "alloc_id", Indexer: &memdb.StringFieldIndex{Field: "AllocID"}},
		"node_id":  {Name: "node_id", Indexer: &memdb.StringFieldIndex{Field: "NodeID"}},
		"job": {Name: "job", Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
			&memdb.StringFieldIndex{Field: "Namespace"},
			&memdb.StringFieldIndex{Field: "JobID"},
		}}},
	}}
}

// UpsertServiceRegistrations writes regs at index. A registration whose ID
// is stored keeps its CreateIndex; one equal to the stored row (indexes
// aside) is left alone, so a client re-registering what it registered
// wakes no blocking query. The endpoint checked the allocations; the store
// does not look them up again. regs are stored: the caller gives them up.
func (s *StateStore) UpsertServiceRegistrations(index uint64, regs []*structs.ServiceRegistration) error {
	txn := s.writeTxn()
	defer txn.Abort()
	changed := false
	for _, r := range regs {
		if r == nil {
			continue
		}
		raw, err := txn.First(tableServiceRegistrations, "id", r.ID)
		if err != nil {
			return fmt.Errorf("looking up service registration %q: %w", r.ID, err)
		}
		r.CreateIndex, r.ModifyIndex = index, index
		if raw != nil {
			old := raw.(*structs.ServiceRegistration)
			r.CreateIndex = old.CreateIndex
			if sameRegistration(old, r) {
				continue
			}
		}
		if err := txn.Insert(tableServiceRegistrations, r); err != nil {
			return fmt.Errorf("writing service registration %q: %w", r.ID, err)
		}
		changed = true
	}
	if !changed {
		return nil
	}
	if err := setIndex(txn, tableServiceRegistrations, index); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

// sameRegistration compares a and b but for ModifyIndex.
func sameRegistration(a, b *structs.ServiceRegistration) bool {
	x, y := *a, *b
	x.ModifyIndex, y.ModifyIndex = 0, 0
	return reflect.DeepEqual(x, y)
}

// DeleteServiceRegistrationByID deletes the registration id of namespace
// at index: structs.ErrCodeNotFound (coded) when there is none there.
func (s *StateStore) DeleteServiceRegistrationByID(index uint64, namespace, id string) error {
	txn := s.writeTxn()
	defer txn.Abort()
	raw, err := txn.First(tableServiceRegistrations, "id", id)
	if err != nil {
		return fmt.Errorf("looking up service registration %q: %w", id, err)
	}
	if raw == nil || raw.(*structs.ServiceRegistration).Namespace != namespace {
		return structs.NewCodedError(structs.ErrCodeNotFound, "service registration %q not found", id)
	}
	if err := txn.Delete(tableServiceRegistrations, raw); err != nil {
		return fmt.Errorf("deleting service registration %q: %w", id, err)
	}
	if err := setIndex(txn, tableServiceRegistrations, index); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

// DeleteServiceRegistrationsByAllocIDs deletes every registration of the
// allocations at index (none is fine).
func (s *StateStore) DeleteServiceRegistrationsByAllocIDs(index uint64, allocIDs []string) error {
	txn := s.writeTxn()
	defer txn.Abort()
	n := 0
	for _, id := range allocIDs {
		k, err := deleteServicesTxn(txn, "alloc_id", id)
		if err != nil {
			return err
		}
		n += k
	}
	if n == 0 {
		return nil
	}
	if err := setIndex(txn, tableServiceRegistrations, index); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

// deleteServicesTxn deletes the registrations index names (alloc_id or
// node_id) for id inside txn and returns how many; the caller sets the
// table's index when it is more than 0 (deleteServicesOfTxn does both).
func deleteServicesTxn(txn *memdb.Txn, index, id string) (int, error) {
	n, err := txn.DeleteAll(tableServiceRegistrations, index, id)
	if err != nil {
		return 0, fmt.Errorf("deleting the service registrations of %s %q: %w", index, id, err)
	}
	return n, nil
}

// deleteServicesOfTxn deletes, in the caller's write, the registrations of
// a node that went down (index "node_id") or of an allocation its client
// reported terminal ("alloc_id"), so they vanish in the same transaction.
func deleteServicesOfTxn(txn *memdb.Txn, raftIndex uint64, index, id string) error {
	n, err := deleteServicesTxn(txn, index, id)
	if err != nil || n == 0 {
		return err
	}
	return setIndex(txn, tableServiceRegistrations, raftIndex)
}

// ServiceRegistrations returns every registration ordered by ID
// (namespace "*") or those of one namespace ordered by service name then
// ID. Stored objects: read-only.
func (r reader) ServiceRegistrations(ws memdb.WatchSet, namespace string) ([]*structs.ServiceRegistration, error) {
	txn := r.db.Txn(false)
	var it memdb.ResultIterator
	var err error
	if namespace == structs.AllNamespaces {
		it, err = txn.Get(tableServiceRegistrations, "id")
	} else {
		it, err = txn.Get(tableServiceRegistrations, "service_name_prefix", namespace, "")
	}
	if err != nil {
		return nil, fmt.Errorf("listing service registrations: %w", err)
	}
	return collectServices(ws, it), nil
}

// ServiceRegistrationsByName returns the registrations of service name in
// namespace, ordered by ID.
func (r reader) ServiceRegistrationsByName(ws memdb.WatchSet, namespace, name string) ([]*structs.ServiceRegistration, error) {
	it, err := r.db.Txn(false).Get(tableServiceRegistrations, "service_name", namespace, name)
	if err != nil {
		return nil, fmt.Errorf("reading service %q: %w", name, err)
	}
	out := collectServices(ws, it)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// ServiceRegistrationByID returns the registration or nil.
func (r reader) ServiceRegistrationByID(ws memdb.WatchSet, id string) (*structs.ServiceRegistration, error) {
	ch, raw, err := r.db.Txn(false).FirstWatch(tableServiceRegistrations, "id", id)
	if err != nil {
		return nil, fmt.Errorf("reading service registration %q: %w", id, err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.ServiceRegistration), nil
}

// ServiceRegistrationsByAllocID returns an allocation's registrations.
func (r reader) ServiceRegistrationsByAllocID(ws memdb.WatchSet, allocID string) ([]*structs.ServiceRegistration, error) {
	it, err := r.db.Txn(false).Get(tableServiceRegistrations, "alloc_id", allocID)
	if err != nil {
		return nil, fmt.Errorf("reading the services of alloc %q: %w", allocID, err)
	}
	return collectServices(ws, it), nil
}

// ServiceRegistrationsByNodeID returns a node's registrations.
func (r reader) ServiceRegistrationsByNodeID(ws memdb.WatchSet, nodeID string) ([]*structs.ServiceRegistration, error) {
	it, err := r.db.Txn(false).Get(tableServiceRegistrations, "node_id", nodeID)
	if err != nil {
		return nil, fmt.Errorf("reading the services of node %q: %w", nodeID, err)
	}
	return collectServices(ws, it), nil
}

// ServiceRegistrationsByJobID returns a job's registrations.
func (r reader) ServiceRegistrationsByJobID(ws memdb.WatchSet, namespace, jobID string) ([]*structs.ServiceRegistration, error) {
	it, err := r.db.Txn(false).Get(tableServiceRegistrations, "job", namespace, jobID)
	if err != nil {
		return nil, fmt.Errorf("reading the services of job %q: %w", jobID, err)
	}
	return collectServices(ws, it), nil
}

func collectServices(ws memdb.WatchSet, it memdb.ResultIterator) []*structs.ServiceRegistration {
	ws.Add(it.WatchCh())
	var out []*structs.ServiceRegistration
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*structs.ServiceRegistration))
	}
	return out
}
