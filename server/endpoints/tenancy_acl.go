package endpoints

import (
	"github.com/nomadish/nomadish/acl"
)

// The ACL rules of the Namespace and NodePool endpoints, as Nomad's:
// namespaces are written by management tokens and read with any
// capability in them (lists keep those); node pools are read, written and
// deleted with the node_pool rule of their name (lists keep the visible
// ones), their nodes also need node read and their jobs list-jobs in each
// job's namespace. With ACLs off every check passes.

// allowManagement refuses (403) a token that is not a management token.
func (d *Deps) allowManagement(secret, what string) error {
	return d.allowLevel(secret, what, (*acl.ACL).IsManagement)
}

// namespaceVisible resolves secret into the filter of the namespaces it
// may see (nil ACL: all of them).
func (d *Deps) namespaceVisible(secret string) (func(string) bool, error) {
	a, _, err := d.resolveACL(secret)
	if err != nil {
		return nil, err
	}
	return a.AllowNamespace, nil
}

// allowNamespaceRead refuses (403) a token with no capability in ns.
func (d *Deps) allowNamespaceRead(secret, ns string) error {
	a, accessor, err := d.resolveACL(secret)
	if err != nil {
		return err
	}
	if !a.AllowNamespace(ns) {
		return d.denied(accessor, ns, "namespace read")
	}
	return nil
}

// allowNodePoolOp refuses (403) a token without op (read, write, delete)
// on every pool of names.
func (d *Deps) allowNodePoolOp(secret, op string, names ...string) error {
	a, accessor, err := d.resolveACL(secret)
	if err != nil {
		return err
	}
	for _, n := range names {
		if !a.AllowNodePoolOperation(n, op) {
			return d.denied(accessor, "", "node_pool "+n+" "+op)
		}
	}
	return nil
}

// nodePoolVisible resolves secret into the filter of the pools it may see.
func (d *Deps) nodePoolVisible(secret string) (func(string) bool, error) {
	a, _, err := d.resolveACL(secret)
	if err != nil {
		return nil, err
	}
	return a.AllowNodePool, nil
}
