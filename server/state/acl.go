package state

import (
	"crypto/subtle"
	"fmt"
	"sort"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// UpsertACLPolicies writes policies at index (CreateIndex kept on update).
func (s *StateStore) UpsertACLPolicies(index uint64, policies []*structs.ACLPolicy) error {
	txn := s.writeTxn()
	defer txn.Abort()
	for _, in := range policies {
		p := *in
		raw, err := txn.First(tableACLPolicies, "id", p.Name)
		if err != nil {
			return fmt.Errorf("looking up ACL policy %q: %w", p.Name, err)
		}
		p.CreateIndex = index
		if raw != nil {
			p.CreateIndex = raw.(*structs.ACLPolicy).CreateIndex
		}
		p.ModifyIndex = index
		if err := txn.Insert(tableACLPolicies, &p); err != nil {
			return fmt.Errorf("writing ACL policy %q: %w", p.Name, err)
		}
	}
	if err := setIndex(txn, tableACLPolicies, index); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

// DeleteACLPolicies deletes policies by name; unknown names are ignored.
func (s *StateStore) DeleteACLPolicies(index uint64, names []string) error {
	txn := s.writeTxn()
	defer txn.Abort()
	for _, n := range names {
		if _, err := txn.DeleteAll(tableACLPolicies, "id", n); err != nil {
			return fmt.Errorf("deleting ACL policy %q: %w", n, err)
		}
	}
	if err := setIndex(txn, tableACLPolicies, index); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

// ACLPolicyByName returns the stored policy (shared: read-only) or nil.
func (r reader) ACLPolicyByName(ws memdb.WatchSet, name string) (*structs.ACLPolicy, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableACLPolicies, "id", name)
	if err != nil {
		return nil, fmt.Errorf("reading ACL policy %q: %w", name, err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.ACLPolicy), nil
}

// ACLPolicies lists every policy by name (shared: read-only).
func (r reader) ACLPolicies(ws memdb.WatchSet) ([]*structs.ACLPolicy, error) {
	txn := r.db.Txn(false)
	it, err := txn.Get(tableACLPolicies, "id")
	if err != nil {
		return nil, fmt.Errorf("listing ACL policies: %w", err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.ACLPolicy
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*structs.ACLPolicy))
	}
	return out, nil
}

// UpsertACLTokens writes tokens at index (CreateIndex kept on update).
func (s *StateStore) UpsertACLTokens(index uint64, tokens []*structs.ACLToken) error {
	txn := s.writeTxn()
	defer txn.Abort()
	if err := upsertACLTokensTxn(txn, index, tokens); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

func upsertACLTokensTxn(txn *memdb.Txn, index uint64, tokens []*structs.ACLToken) error {
	for _, in := range tokens {
		t := in.Copy()
		raw, err := txn.First(tableACLTokens, "id", t.AccessorID)
		if err != nil {
			return fmt.Errorf("looking up ACL token %q: %w", t.AccessorID, err)
		}
		t.CreateIndex = index
		if raw != nil {
			t.CreateIndex = raw.(*structs.ACLToken).CreateIndex
		}
		t.ModifyIndex = index
		if err := txn.Insert(tableACLTokens, t); err != nil {
			return fmt.Errorf("writing ACL token %q: %w", t.AccessorID, err)
		}
	}
	return setIndex(txn, tableACLTokens, index)
}

// DeleteACLTokens deletes tokens by accessor; unknown ones are ignored.
func (s *StateStore) DeleteACLTokens(index uint64, accessors []string) error {
	txn := s.writeTxn()
	defer txn.Abort()
	for _, a := range accessors {
		if _, err := txn.DeleteAll(tableACLTokens, "id", a); err != nil {
			return fmt.Errorf("deleting ACL token %q: %w", a, err)
		}
	}
	if err := setIndex(txn, tableACLTokens, index); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

// BootstrapACLToken writes the bootstrap management token at index when
// no bootstrap happened yet, or when resetIndex is the last bootstrap's
// index (an operator wrote it to the reset file); it fails otherwise.
func (s *StateStore) BootstrapACLToken(index, resetIndex uint64, token *structs.ACLToken) error {
	txn := s.writeTxn()
	defer txn.Abort()
	raw, err := txn.First(tableIndex, "id", indexACLBootstrap)
	if err != nil {
		return fmt.Errorf("reading ACL bootstrap index: %w", err)
	}
	if raw != nil && raw.(*IndexEntry).Value != resetIndex {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "ACL bootstrap already done (reset index: %d)", raw.(*IndexEntry).Value)
	}
	if err := upsertACLTokensTxn(txn, index, []*structs.ACLToken{token}); err != nil {
		return err
	}
	if err := setIndex(txn, indexACLBootstrap, index); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

// CanBootstrapACLToken reports whether a bootstrap may happen without a
// reset, and the reset index (the last bootstrap's raft index) otherwise.
func (r reader) CanBootstrapACLToken() (bool, uint64, error) {
	idx, err := r.Index(indexACLBootstrap)
	if err != nil {
		return false, 0, err
	}
	return idx == 0, idx, nil
}

// ACLTokenByAccessorID returns the stored token (shared) or nil.
func (r reader) ACLTokenByAccessorID(ws memdb.WatchSet, accessor string) (*structs.ACLToken, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableACLTokens, "id", accessor)
	if err != nil {
		return nil, fmt.Errorf("reading ACL token: %w", err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.ACLToken), nil
}

// ACLTokenBySecretID returns the token whose secret is secret (shared) or
// nil. The lookup goes through a hash of the secret and the stored secret
// is compared in constant time.
func (r reader) ACLTokenBySecretID(ws memdb.WatchSet, secret string) (*structs.ACLToken, error) {
	if secret == "" {
		return nil, nil
	}
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableACLTokens, "secret", secret)
	if err != nil {
		return nil, fmt.Errorf("reading ACL token: %w", err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	t := raw.(*structs.ACLToken)
	if subtle.ConstantTimeCompare([]byte(t.SecretID), []byte(secret)) != 1 {
		return nil, nil
	}
	return t, nil
}

// ACLTokens lists every token by accessor (shared: read-only).
func (r reader) ACLTokens(ws memdb.WatchSet) ([]*structs.ACLToken, error) {
	txn := r.db.Txn(false)
	it, err := txn.Get(tableACLTokens, "id")
	if err != nil {
		return nil, fmt.Errorf("listing ACL tokens: %w", err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.ACLToken
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*structs.ACLToken))
	}
	return out, nil
}

// UpsertACLRoles writes roles at index (CreateIndex kept on update). A
// name taken by another role is a 400.
func (s *StateStore) UpsertACLRoles(index uint64, roles []*structs.ACLRole) error {
	txn := s.writeTxn()
	defer txn.Abort()
	for _, in := range roles {
		r := *in
		raw, err := txn.First(tableACLRoles, "name", r.Name)
		if err != nil {
			return fmt.Errorf("looking up ACL role %q: %w", r.Name, err)
		}
		if raw != nil && raw.(*structs.ACLRole).ID != r.ID {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "ACL role with name %s already exists", r.Name)
		}
		raw, err = txn.First(tableACLRoles, "id", r.ID)
		if err != nil {
			return fmt.Errorf("looking up ACL role %q: %w", r.ID, err)
		}
		r.CreateIndex = index
		if raw != nil {
			r.CreateIndex = raw.(*structs.ACLRole).CreateIndex
		}
		r.ModifyIndex = index
		if err := txn.Insert(tableACLRoles, &r); err != nil {
			return fmt.Errorf("writing ACL role %q: %w", r.Name, err)
		}
	}
	if err := setIndex(txn, tableACLRoles, index); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

// DeleteACLRoles deletes roles by ID; unknown IDs are ignored.
func (s *StateStore) DeleteACLRoles(index uint64, ids []string) error {
	txn := s.writeTxn()
	defer txn.Abort()
	for _, id := range ids {
		if _, err := txn.DeleteAll(tableACLRoles, "id", id); err != nil {
			return fmt.Errorf("deleting ACL role %q: %w", id, err)
		}
	}
	if err := setIndex(txn, tableACLRoles, index); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

// ACLRoleByID returns the stored role (shared) or nil.
func (r reader) ACLRoleByID(ws memdb.WatchSet, id string) (*structs.ACLRole, error) {
	return r.aclRoleBy(ws, "id", id)
}

// ACLRoleByName returns the stored role (shared) or nil.
func (r reader) ACLRoleByName(ws memdb.WatchSet, name string) (*structs.ACLRole, error) {
	return r.aclRoleBy(ws, "name", name)
}

func (r reader) aclRoleBy(ws memdb.WatchSet, index, key string) (*structs.ACLRole, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableACLRoles, index, key)
	if err != nil {
		return nil, fmt.Errorf("reading ACL role %q: %w", key, err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.ACLRole), nil
}

// ACLRoles lists every role by name (shared: read-only).
func (r reader) ACLRoles(ws memdb.WatchSet) ([]*structs.ACLRole, error) {
	txn := r.db.Txn(false)
	it, err := txn.Get(tableACLRoles, "id")
	if err != nil {
		return nil, fmt.Errorf("listing ACL roles: %w", err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.ACLRole
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*structs.ACLRole))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
