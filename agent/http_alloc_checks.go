package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/structs"
)

// AllocChecker is the optional part of the agent's own client
// (client.Client) answering the latest check results of a local
// allocation. Errors are *structs.CodedError (404 unknown alloc).
type AllocChecker interface {
	AllocChecks(allocID string) (map[string]*structs.CheckQueryResult, error)
}

// allocChecks serves GET /v1/client/allocation/:id/checks (Nomad's path)
// and /v1/allocation/:id/checks: a map of check ID to the check's latest
// result (CheckQueryResult), empty for an allocation without checks.
// Reached through any agent (clientRoute). 404: unknown alloc; 501: the
// agent has no client to answer.
func (s *httpServer) allocChecks(w http.ResponseWriter, r *http.Request) (any, error) {
	if _, err := s.localAlloc(r, r.PathValue("id"), ""); err != nil {
		return nil, err
	}
	ck, ok := s.Logs.(AllocChecker)
	if !ok {
		return nil, structs.NewCodedError(http.StatusNotImplemented, "this agent's client does not run checks")
	}
	return ck.AllocChecks(r.PathValue("id"))
}
