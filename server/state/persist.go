package state

import (
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-msgpack/v2/codec"

	"github.com/nomadish/nomadish/structs"
)

// Record types of a persisted snapshot stream: a type byte, then the msgpack
// of one object. Append-only, like structs.MessageType.
type recordType uint8

const (
	recordIndex recordType = 1
	recordJob   recordType = 2
	recordNode  recordType = 3
	recordAlloc recordType = 4
	recordEval  recordType = 5
)

// persistedTables lists each table Persist writes with its record type.
// Every table of schema() must be here (TestPersistCoversEveryTable): a
// table left out would be silently empty after a snapshot restore.
var persistedTables = []struct {
	name string
	t    recordType
}{
	{tableIndex, recordIndex}, {tableJobs, recordJob}, {tableNodes, recordNode}, {tableAllocs, recordAlloc},
	{tableEvals, recordEval}, {tableJobVersions, recordJobVersion}, {tableSchedulerConfig, recordSchedulerConfig},
	{tableDeployments, recordDeployment}, {tableNamespaces, recordNamespace}, {tableNodePools, recordNodePool},
	{tableACLPolicies, recordACLPolicy}, {tableACLTokens, recordACLToken}, {tableACLRoles, recordACLRole},
	{tableVariables, recordVariable}, {tableRootKeys, recordRootKeyMeta},
	{tablePeriodicLaunch, recordPeriodicLaunch},
	{tableServiceRegistrations, recordServiceRegistration},
	{tableAutopilotConfig, recordAutopilotConfig},
	{tableJobSubmissions, recordJobSubmission},
}

// derivedTables are rebuilt from the persisted ones as they are restored
// (Restore), not written to snapshots.
var derivedTables = []string{tableNodeUsage}

// Persist writes every object of the snapshot to w as a msgpack stream (for
// raft snapshots).
func (s *StateSnapshot) Persist(w io.Writer) error {
	enc := codec.NewEncoder(w, structs.MsgpackHandle)
	write := func(t recordType, obj any) error {
		if err := enc.Encode(t); err != nil {
			return fmt.Errorf("persisting record type %d: %w", t, err)
		}
		if err := enc.Encode(obj); err != nil {
			return fmt.Errorf("persisting record type %d: %w", t, err)
		}
		return nil
	}
	txn := s.db.Txn(false)
	for _, table := range persistedTables {
		it, err := txn.Get(table.name, "id")
		if err != nil {
			return fmt.Errorf("persisting %s: %w", table.name, err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			if err := write(table.t, raw); err != nil {
				return err
			}
		}
	}
	return nil
}

// Restore builds a new store from a stream written by Persist.
func Restore(r io.Reader, logger hclog.Logger) (*StateStore, error) {
	s, err := New(logger)
	if err != nil {
		return nil, err
	}
	dec := codec.NewDecoder(r, structs.MsgpackHandle)
	txn := s.db.Txn(true)
	defer txn.Abort()
	for {
		var t recordType
		if err := dec.Decode(&t); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("restoring: reading record type: %w", err)
		}
		obj, table, err := newRecord(t)
		if err != nil {
			return nil, err
		}
		if err := dec.Decode(obj); err != nil {
			return nil, fmt.Errorf("restoring %s: %w", table, err)
		}
		if err := txn.Insert(table, obj); err != nil {
			return nil, fmt.Errorf("restoring %s: %w", table, err)
		}
		if a, ok := obj.(*structs.Allocation); ok { // derivedTables
			if err := moveNodeUsage(txn, nil, a); err != nil {
				return nil, fmt.Errorf("restoring: %w", err)
			}
		}
	}
	txn.Commit()
	return s, nil
}

func newRecord(t recordType) (any, string, error) {
	switch t {
	case recordIndex:
		return &IndexEntry{}, tableIndex, nil
	case recordJob:
		return &structs.Job{}, tableJobs, nil
	case recordNode:
		return &structs.Node{}, tableNodes, nil
	case recordAlloc:
		return &structs.Allocation{}, tableAllocs, nil
	case recordEval:
		return &structs.Evaluation{}, tableEvals, nil
	case recordJobVersion:
		return &structs.Job{}, tableJobVersions, nil
	case recordSchedulerConfig:
		return &structs.SchedulerConfiguration{}, tableSchedulerConfig, nil
	case recordDeployment:
		return &structs.Deployment{}, tableDeployments, nil
	case recordNamespace:
		return &structs.Namespace{}, tableNamespaces, nil
	case recordNodePool:
		return &structs.NodePool{}, tableNodePools, nil
	case recordACLPolicy:
		return &structs.ACLPolicy{}, tableACLPolicies, nil
	case recordACLToken:
		return &structs.ACLToken{}, tableACLTokens, nil
	case recordACLRole:
		return &structs.ACLRole{}, tableACLRoles, nil
	case recordVariable:
		return &structs.VariableEncrypted{}, tableVariables, nil
	case recordRootKeyMeta:
		return &structs.RootKeyMeta{}, tableRootKeys, nil
	case recordPeriodicLaunch:
		return &structs.PeriodicLaunch{}, tablePeriodicLaunch, nil
	case recordAutopilotConfig:
		return &structs.AutopilotConfig{}, tableAutopilotConfig, nil
	case recordServiceRegistration:
		return &structs.ServiceRegistration{}, tableServiceRegistrations, nil
	case recordJobSubmission:
		return &structs.JobSubmission{}, tableJobSubmissions, nil
	}
	return nil, "", fmt.Errorf("restoring: unknown record type %d", t)
}
