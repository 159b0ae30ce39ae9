package endpoints

import (
	"crypto/subtle"
	"fmt"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// Client introduction enforcement modes (Nomad 1.11's server {
// client_introduction { enforcement } }): what happens when a node ID the
// servers have never seen registers without a valid introduction token.
const (
	// IntroEnforcementNone accepts it silently.
	IntroEnforcementNone = "none"
	// IntroEnforcementWarn accepts it and logs a warning (the default, as
	// Nomad's).
	IntroEnforcementWarn = "warn"
	// IntroEnforcementStrict refuses it with ErrNodeNotIntroduced.
	IntroEnforcementStrict = "strict"
)

// ClientIntroductionConfig is the servers' client introduction policy.
// Only the registration of a new node ID is concerned: a known node
// re-registers (and calls every other node RPC) with its SecretID whatever
// the mode.
type ClientIntroductionConfig struct {
	// Enforcement is IntroEnforcementNone, Warn (""), or Strict.
	Enforcement string
	// Tokens are the introduction tokens a new node may present (as
	// WriteRequest.AuthToken of Node.Register). Each server of a cluster
	// must hold the same list (the leader checks).
	Tokens []string
}

// Validate checks the mode and the tokens' length (strict with no token is
// allowed: it admits no new node at all). Errors name the key; the
// server's Config.Validate wraps them with its ErrConfig.
func (c ClientIntroductionConfig) Validate() error {
	switch c.Enforcement {
	case "", IntroEnforcementNone, IntroEnforcementWarn:
	case IntroEnforcementStrict:
	default:
		return fmt.Errorf("client_introduction.enforcement must be none, warn or strict (got %q)", c.Enforcement)
	}
	for i, t := range c.Tokens {
		if len(t) < 16 {
			return fmt.Errorf("client_introduction.tokens[%d] is shorter than 16 characters", i)
		}
	}
	return nil
}

// validToken reports whether token is one of the configured tokens,
// comparing each in constant time.
func (c ClientIntroductionConfig) validToken(token string) bool {
	ok := 0
	for _, t := range c.Tokens {
		ok |= subtle.ConstantTimeCompare([]byte(t), []byte(token))
	}
	return token != "" && ok == 1
}

// introduceNode applies the introduction policy to the registration of
// the new node n carrying token: nil to go on, ErrNodeNotIntroduced to
// refuse (strict mode). Called by Node.Register on the leader only.
func introduceNode(ci ClientIntroductionConfig, logger hclog.Logger, n *structs.Node, token string) error {
	if ci.Enforcement == IntroEnforcementNone || ci.validToken(token) {
		return nil
	}
	if ci.Enforcement == IntroEnforcementStrict {
		logger.Warn("refused a new node without a valid client introduction token", "node_id", n.ID, "node_name", n.Name)
		return structs.ErrNodeNotIntroduced
	}
	logger.Warn("new node registered without a valid client introduction token (client_introduction.enforcement = \"warn\")", "node_id", n.ID, "node_name", n.Name)
	return nil
}

// nodeSecret returns the secret a node RPC carries: its AuthToken (Nomad's
// place), else the request's legacy SecretID field.
func nodeSecret(authToken, secretID string) string {
	if authToken != "" {
		return authToken
	}
	return secretID
}

// AuthenticateNode returns ErrNodeNotFound when node is nil and
// ErrNodeSecretMismatch unless secret is its SecretID.
func AuthenticateNode(node *structs.Node, secret string) error {
	if node == nil {
		return structs.ErrNodeNotFound
	}
	if !node.SecretMatches(secret) {
		return structs.ErrNodeSecretMismatch
	}
	return nil
}

// authorizeAllocUpdates checks a Node.UpdateAlloc batch against st: every
// allocation the batch names that st holds must be on one node, whose
// SecretID is secret. It returns the updates for known allocations (those
// st no longer holds are dropped: the FSM would ignore them) or, for a
// missing or wrong secret or an allocation of another node, an error and
// nothing: the whole batch is refused.
func authorizeAllocUpdates(st allocNodeReader, updates []*structs.Allocation, secret string) ([]*structs.Allocation, error) {
	var node *structs.Node
	out := make([]*structs.Allocation, 0, len(updates))
	for i, u := range updates {
		if u == nil {
			return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "alloc update %d is null", i)
		}
		a, err := st.AllocByID(nil, u.ID)
		if err != nil {
			return nil, err
		}
		if a == nil {
			continue
		}
		if node == nil {
			if node, err = st.NodeByID(nil, a.NodeID); err != nil {
				return nil, err
			}
			if err := AuthenticateNode(node, secret); err != nil {
				if err == structs.ErrNodeNotFound {
					return nil, structs.ErrNodeSecretMismatch
				}
				return nil, err
			}
		} else if a.NodeID != node.ID {
			return nil, structs.ErrNodeForeignAlloc
		}
		out = append(out, u)
	}
	return out, nil
}

// allocNodeReader is what authorizeAllocUpdates reads (a state store or
// snapshot).
type allocNodeReader interface {
	AllocByID(ws memdb.WatchSet, id string) (*structs.Allocation, error)
	NodeByID(ws memdb.WatchSet, id string) (*structs.Node, error)
}
