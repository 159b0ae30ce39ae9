package state

import (
	"crypto/sha256"
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// ACL tables: policies by name, tokens by accessor (and by a hash of the
// secret), roles by ID and name.
const (
	tableACLPolicies = "acl_policy"
	tableACLTokens   = "acl_token"
	tableACLRoles    = "acl_role"
	// indexACLBootstrap is the index-table row holding the raft index of
	// the last bootstrap (0: never bootstrapped).
	indexACLBootstrap = "acl_token_bootstrap"
)

// Exported table names for blocking queries.
const (
	TableACLPolicies = tableACLPolicies
	TableACLTokens   = tableACLTokens
	TableACLRoles    = tableACLRoles
)

// Persisted record types of the ACL tables (60..69 are ACL's).
const (
	recordACLPolicy recordType = 60
	recordACLToken  recordType = 61
	recordACLRole   recordType = 62
)

// secretHashIndex indexes ACL tokens and nodes by sha256(SecretID): a
// lookup walks the radix tree over the hash, so its timing says nothing
// about the secret's characters; the caller then compares the secrets in
// constant time.
type secretHashIndex struct{}

func secretKey(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

func (secretHashIndex) FromObject(raw any) (bool, []byte, error) {
	var secret string
	switch o := raw.(type) {
	case *structs.ACLToken:
		secret = o.SecretID
	case *structs.Node:
		secret = o.SecretID
	default:
		return false, nil, fmt.Errorf("secret index: %T is neither a token nor a node", raw)
	}
	if secret == "" {
		return false, nil, nil
	}
	return true, secretKey(secret), nil
}

func (secretHashIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("secret index: want one argument")
	}
	s, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("secret index: argument %T is not a string", args[0])
	}
	return secretKey(s), nil
}

func aclPoliciesSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableACLPolicies, Indexes: map[string]*memdb.IndexSchema{
		"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Name"}},
	}}
}

func aclTokensSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableACLTokens, Indexes: map[string]*memdb.IndexSchema{
		"id":     {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "AccessorID"}},
		"secret": {Name: "secret", Unique: true, Indexer: secretHashIndex{}},
	}}
}

func aclRolesSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableACLRoles, Indexes: map[string]*memdb.IndexSchema{
		"id":   {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "ID"}},
		"name": {Name: "name", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Name"}},
	}}
}
