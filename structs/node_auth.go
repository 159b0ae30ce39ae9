package structs

import "crypto/subtle"

// ErrCodeNodeAuth is the code of a node-originated RPC refused because it
// does not prove it comes from the node (HTTP 403, as Nomad's "Permission
// denied").
const ErrCodeNodeAuth = 403

// Refusals of node-originated RPCs (Node.Register, Node.UpdateStatus,
// Node.UpdateAlloc, Node.GetClientAllocs). They carry ErrCodeNodeAuth and
// say what is wrong without echoing any secret.
var (
	// ErrNodeSecretMismatch: the request's secret is missing or is not the
	// stored node's SecretID.
	ErrNodeSecretMismatch = &CodedError{Code: ErrCodeNodeAuth, Message: "Permission denied: node secret ID does not match the registered node's"}
	// ErrNodeForeignAlloc: an alloc update names an allocation placed on
	// another node.
	ErrNodeForeignAlloc = &CodedError{Code: ErrCodeNodeAuth, Message: "Permission denied: allocation update for an allocation on another node"}
	// ErrNodeNotIntroduced: a new node registered without a valid client
	// introduction token while enforcement is strict.
	ErrNodeNotIntroduced = &CodedError{Code: ErrCodeNodeAuth, Message: "Permission denied: new node has no valid client introduction token"}
)

// SecretMatches reports, in constant time for equal lengths, whether secret
// is the node's SecretID. An empty secret or a node without a SecretID
// never matches.
func (n *Node) SecretMatches(secret string) bool {
	if n == nil || secret == "" || n.SecretID == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(n.SecretID), []byte(secret)) == 1
}

// Sanitized returns the node without its SecretID: n itself when it has
// none, else a shallow copy (n, shared with the state store, is never
// modified). Every reply to a caller that is not the node itself carries
// a sanitized node.
func (n *Node) Sanitized() *Node {
	if n == nil || n.SecretID == "" {
		return n
	}
	cp := *n
	cp.SecretID = ""
	return &cp
}
