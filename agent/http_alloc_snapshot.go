package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/client/allocmigrate"
	"github.com/nomadish/nomadish/structs"
)

// allocSnapshot serves GET /v1/client/allocation/:id/snapshot (Nomad's
// path): a tar stream of the allocation's alloc/data and its tasks' local/
// directories (client/allocmigrate), which a replacement allocation with
// ephemeral_disk { migrate = true } on another node restores. It needs
// read-fs on the allocation (the same data the fs endpoints serve) and is
// forwarded to the allocation's node like them. 404: unknown allocation;
// 501: not on this agent's client.
func (s *httpServer) allocSnapshot(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	q, err := s.parseQuery(r)
	if err != nil {
		return nil, err
	}
	q.MinQueryIndex, q.AllowStale = 0, true
	alloc, _, err := s.getAlloc(id, q)
	if err != nil {
		return nil, err
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
