package state

import (
	"fmt"
	"sort"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// tableNamespaces holds the namespaces written through raft; "default" is
// implicit until written (reads synthesize it).
const tableNamespaces = "namespaces"

// recordNamespace is its record type in persisted snapshots.
const recordNamespace recordType = 70

// TableNamespaces is the table name for Index and WatchTables.
const TableNamespaces = tableNamespaces

func namespacesSchema() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableNamespaces,
		Indexes: map[string]*memdb.IndexSchema{
			"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Name"}},
		},
	}
}

// UpsertNamespaces creates or updates namespaces at index, keeping each
// existing one's CreateIndex.
func (s *StateStore) UpsertNamespaces(index uint64, nss []*structs.Namespace) error {
	txn := s.db.Txn(true)
	defer txn.Abort()
	for _, in := range nss {
		if in == nil {
			continue // a malformed entry: nothing to write
		}
		ns := in.Copy()
		ns.CreateIndex, ns.ModifyIndex = index, index
		old, err := txn.First(tableNamespaces, "id", ns.Name)
		if err != nil {
			return fmt.Errorf("reading namespace %q: %w", ns.Name, err)
		}
		if old != nil {
			ns.CreateIndex = old.(*structs.Namespace).CreateIndex
		}
		if err := txn.Insert(tableNamespaces, ns); err != nil {
			return fmt.Errorf("writing namespace %q: %w", ns.Name, err)
		}
	}
	if err := setIndex(txn, tableNamespaces, index); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

// DeleteNamespaces deletes namespaces at index. It refuses (a 400 coded
// error, nothing deleted) "default" and any namespace that still holds a
// non-terminal job (NamespaceJobs); an unknown name is a 404.
func (s *StateStore) DeleteNamespaces(index uint64, names []string) error {
	txn := s.db.Txn(true)
	defer txn.Abort()
	for _, name := range names {
		if name == structs.DefaultNamespaceName {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "namespace %q can not be deleted", name)
		}
		if jobs := liveJobsIn(txn, name); len(jobs) > 0 {
			return structs.NewCodedError(structs.ErrCodeBadRequest,
				"namespace %q contains at least one non-terminal job: %v", name, jobs)
		}
		n, err := txn.DeleteAll(tableNamespaces, "id", name)
		if err != nil {
			return fmt.Errorf("deleting namespace %q: %w", name, err)
		}
		if n == 0 {
			return structs.NewCodedError(structs.ErrCodeNotFound, "namespace %q not found", name)
		}
	}
	if err := setIndex(txn, tableNamespaces, index); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

// liveJobsIn returns the IDs of namespace's jobs that are not dead.
func liveJobsIn(txn *memdb.Txn, namespace string) []string {
	it, err := txn.Get(tableJobs, "id_prefix", namespace, "")
	if err != nil {
		return nil
	}
	var out []string
	for raw := it.Next(); raw != nil; raw = it.Next() {
		j := raw.(*structs.Job)
		if j.Namespace == namespace && j.Status != structs.JobStatusDead {
			out = append(out, j.ID)
		}
	}
	return out
}

// NamespaceLiveJobs returns the IDs of namespace's jobs that are not dead
// (what keeps it from being deleted).
func (r reader) NamespaceLiveJobs(namespace string) []string {
	return liveJobsIn(r.db.Txn(false), namespace)
}

// NamespaceByName returns a namespace, nil when absent ("default" always
// exists). The returned value is shared: read-only.
func (r reader) NamespaceByName(ws memdb.WatchSet, name string) (*structs.Namespace, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableNamespaces, "id", name)
	if err != nil {
		return nil, fmt.Errorf("reading namespace %q: %w", name, err)
	}
	ws.Add(ch)
	if raw != nil {
		return raw.(*structs.Namespace), nil
	}
	if name == structs.DefaultNamespaceName {
		return structs.DefaultNamespaceObject(), nil
	}
	return nil, nil
}

// Namespaces returns every namespace, "default" included, sorted by name.
// The values are shared: read-only.
func (r reader) Namespaces() ([]*structs.Namespace, error) {
	txn := r.db.Txn(false)
	it, err := txn.Get(tableNamespaces, "id")
	if err != nil {
		return nil, fmt.Errorf("listing namespaces: %w", err)
	}
	var out []*structs.Namespace
	haveDefault := false
	for raw := it.Next(); raw != nil; raw = it.Next() {
		ns := raw.(*structs.Namespace)
		haveDefault = haveDefault || ns.Name == structs.DefaultNamespaceName
		out = append(out, ns)
	}
	if !haveDefault {
		out = append(out, structs.DefaultNamespaceObject())
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	}
	return out, nil
}

// checkNewJobNamespaceTxn refuses a job that is not stored yet in a
// namespace that does not exist ("default" always does). Jobs already
// stored (a stop, an update) pass: their namespace can't have been deleted
// while they lived.
func checkNewJobNamespaceTxn(txn *memdb.Txn, job *structs.Job) error {
	if job.Namespace == structs.DefaultNamespaceName {
		return nil
	}
	existing, err := txn.First(tableJobs, "id", job.Namespace, job.ID)
	if err != nil {
		return fmt.Errorf("looking up job %q: %w", job.ID, err)
	}
	if existing != nil {
		return nil
	}
	ns, err := txn.First(tableNamespaces, "id", job.Namespace)
	if err != nil {
		return fmt.Errorf("reading namespace %q: %w", job.Namespace, err)
	}
	if ns == nil {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "namespace %q does not exist", job.Namespace)
	}
	return nil
}
