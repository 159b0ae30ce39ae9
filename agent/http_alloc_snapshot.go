package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/client/allocmigrate"
	"github.com/nomadish/nomadish/structs"
)

// MigrateTokenChecker is implemented by a client (client.(*Client)) that
// checks migrate tokens with its own node secret
// (structs.CompareMigrateToken).
type MigrateTokenChecker interface {
	ValidMigrateToken(allocID, token string) bool
}

// snapshotRoute wraps the snapshot handler f. The route accepts read-fs on
// the allocation or the allocation's migrate token (the one the servers
// gave its replacement; Nomad's rule), which only the agent whose client
// holds the allocation can check. So an agent that forwards (the
// allocation is on another node) checks nothing and forwards once, as
// clientRoute does; the holding agent (or one answering locally) checks the
// token before anything is served: a valid migrate token, else
// ACL.AllowAllocOperation(read-fs) (with ACLs off: anyone). A wrong or
// missing token with ACLs on is 403.
func (s *httpServer) snapshotRoute(f handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) (any, error) {
		id := r.PathValue("id")
		if node := s.snapshotNode(r, id); node != "" {
			return nil, s.forwardToNode(w, r, node)
		}
		if !s.validMigrateToken(r, id) {
			if err := s.allowAlloc(r, id, acl.NamespaceCapabilityReadFS); err != nil {
				return nil, err
			}
		}
		return f(w, r)
	}
}

// snapshotNode returns the node to forward a snapshot request for
// allocation id to: "" when the request was forwarded already, there is no
// NodeDialer, the allocation is unknown or local. The lookup is
// Alloc.GetAllocs as this agent's client (allocLookupToken: the request's
// token may be a migrate token no server resolves); only the node ID is
// used, nothing of the allocation is served here.
func (s *httpServer) snapshotNode(r *http.Request, id string) string {
	if s.Nodes == nil || r.Header.Get(forwardedHeader) != "" {
		return ""
	}
	q, err := s.parseQuery(r)
	if err != nil {
		return ""
	}
	args := structs.AllocsGetRequest{AllocIDs: []string{id}, QueryOptions: structs.QueryOptions{Region: q.Region, AllowStale: true,
		AuthToken: s.allocLookupToken(q.AuthToken)}}
	var reply structs.AllocsGetResponse
	if err := s.RPC.RPC(structs.AllocGetAllocsRPC, &args, &reply); err != nil || len(reply.Allocs) != 1 {
		return ""
	}
	node := reply.Allocs[0].NodeID
	if node == "" || (s.Logs != nil && node == s.Logs.NodeID()) {
		return ""
	}
	return node
}

// validMigrateToken reports whether the request's token is allocation
// id's migrate token on this agent's client.
func (s *httpServer) validMigrateToken(r *http.Request, id string) bool {
	c, ok := s.Logs.(MigrateTokenChecker)
	if s.Logs == nil || !ok {
		return false
	}
	q, err := s.parseQuery(r)
	return err == nil && q.AuthToken != "" && c.ValidMigrateToken(id, q.AuthToken)
}

// allocSnapshot serves GET /v1/client/allocation/:id/snapshot (Nomad's
// path): a tar stream of the allocation's alloc/data and its tasks' local/
// directories (client/allocmigrate), which a replacement allocation with
// ephemeral_disk { migrate = true } on another node restores. snapshotRoute
// checks the token and forwards. 404: unknown allocation; 501: not on this
// agent's client.
func (s *httpServer) allocSnapshot(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	// The token checked may be a migrate token no server resolves: read
	// the allocation as the clients do (snapshotNode).
	args := structs.AllocsGetRequest{AllocIDs: []string{id}, QueryOptions: structs.QueryOptions{Region: q.Region, AllowStale: true,
		AuthToken: s.allocLookupToken(q.AuthToken)}}
	var reply structs.AllocsGetResponse
	if err := s.RPC.RPC(structs.AllocGetAllocsRPC, &args, &reply); err != nil {
		return nil, err
	}
	var alloc *structs.Allocation
	if len(reply.Allocs) == 1 {
		alloc = reply.Allocs[0]
	}
	if alloc == nil {
		return nil, structs.NewCodedError(structs.ErrCodeNotFound, "unknown allocation %q", id)
	}
	d, ok := s.Logs.(AllocDirer)
	if s.Logs == nil || !ok || alloc.NodeID != s.Logs.NodeID() {
		return nil, structs.NewCodedError(http.StatusNotImplemented, "alloc is not on this agent's client (node %s)", alloc.NodeID)
	}
	dir, err := d.AllocDir(alloc.ID)
	if err != nil {
		return nil, err
	}
	var tasks []string
	if alloc.Job != nil {
		if tg := alloc.Job.LookupTaskGroup(alloc.TaskGroup); tg != nil {
			for _, t := range tg.Tasks {
				tasks = append(tasks, t.Name)
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-tar")
	w.WriteHeader(http.StatusOK)
	if err := allocmigrate.Snapshot(w, dir, tasks); err != nil {
		// The status is sent: the receiver sees a truncated tar stream.
		s.Logger.Warn("alloc snapshot ended early", "alloc_id", alloc.ID, "error", err)
	}
	return nil, nil
}

// nodeSecreter is the agent's client, able to authenticate as its node
// (*client.Client).
type nodeSecreter interface{ NodeSecret() string }

// allocLookupToken is the token the snapshot route reads the allocation
// with: the agent's own node secret when it runs a client (a migrate token
// is checked by the holding client, not by the servers), else the
// request's token.
func (s *httpServer) allocLookupToken(reqToken string) string {
	if c, ok := s.Logs.(nodeSecreter); ok && s.Logs != nil {
		if secret := c.NodeSecret(); secret != "" {
			return secret
		}
	}
	return reqToken
}
