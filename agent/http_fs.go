package agent

import (
	"io"
	"net/http"
	"strconv"

	"github.com/nomadish/nomadish/acl"

	"github.com/nomadish/nomadish/client/allocfs"
	"github.com/nomadish/nomadish/structs"
)

// AllocDirer is the optional part of the agent's own client (the
// LogSource, client.Client) that names a local allocation's directory for
// the fs endpoints. An unknown alloc is a *structs.CodedError 404.
type AllocDirer interface {
	AllocDir(allocID string) (string, error)
}

// fsRoutes registers Nomad's alloc fs endpoints (`nomadish alloc fs`);
// each is forwarded to the allocation's node when another client runs it
// (http_client_forward.go).
func (s *httpServer) fsRoutes(h func(string, handlerFunc)) {
	h("GET /v1/client/fs/ls/{alloc}", s.clientRoute("alloc", acl.NamespaceCapabilityReadFS, s.fsList))
	h("GET /v1/client/fs/stat/{alloc}", s.clientRoute("alloc", acl.NamespaceCapabilityReadFS, s.fsStat))
	h("GET /v1/client/fs/cat/{alloc}", s.clientRoute("alloc", acl.NamespaceCapabilityReadFS, s.fsCat))
	h("GET /v1/client/fs/readat/{alloc}", s.clientRoute("alloc", acl.NamespaceCapabilityReadFS, s.fsReadAt))
}

// fsList serves GET /v1/client/fs/ls/:alloc?path= (default "/"): the
// entries of a directory of the allocation ([]api.AllocFileInfo). 400: a
// path escaping the allocation directory or not a directory; 403: a
// symlink leading outside it; 404: unknown alloc or path.
func (s *httpServer) fsList(w http.ResponseWriter, r *http.Request) (any, error) {
	dir, err := s.localAllocDir(r)
	if err != nil {
		return nil, err
	}
	return allocfs.List(dir, fsPath(r, "/"))
}

// fsStat serves GET /v1/client/fs/stat/:alloc?path= (default "/"): one
// api.AllocFileInfo. Errors as fsList.
func (s *httpServer) fsStat(w http.ResponseWriter, r *http.Request) (any, error) {
	dir, err := s.localAllocDir(r)
	if err != nil {
		return nil, err
	}
	return allocfs.Stat(dir, fsPath(r, "/"))
}

// fsCat serves GET /v1/client/fs/cat/:alloc?path=: the file's bytes. 400
// also for a missing path or a directory.
func (s *httpServer) fsCat(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.fsRead(w, r, 0, -1)
}

// fsReadAt serves GET /v1/client/fs/readat/:alloc?path=&offset=&limit=:
// at most limit bytes (all when limit is absent or negative, as Nomad)
// from offset. 400 also for a bad offset or limit.
func (s *httpServer) fsReadAt(w http.ResponseWriter, r *http.Request) (any, error) {
	q := r.URL.Query()
	offset, err := strconv.ParseInt(q.Get("offset"), 10, 64)
	if err != nil || offset < 0 {
		return nil, badRequest("invalid offset %q: want a number of bytes >= 0", q.Get("offset"))
	}
	limit := int64(-1)
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.ParseInt(v, 10, 64); err != nil {
			return nil, badRequest("invalid limit %q: want a number of bytes", v)
		}
	}
	return s.fsRead(w, r, offset, limit)
}

// fsRead writes limit bytes (all when negative) of the file from offset.
func (s *httpServer) fsRead(w http.ResponseWriter, r *http.Request, offset, limit int64) (any, error) {
	p := fsPath(r, "")
	if p == "" {
		return nil, badRequest("must provide a file path with ?path=")
	}
	dir, err := s.localAllocDir(r)
	if err != nil {
		return nil, err
	}
	f, err := allocfs.Open(dir, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var src io.Reader = io.NewSectionReader(f, offset, 1<<62)
	if limit >= 0 {
		src = io.LimitReader(src, limit)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, src); err != nil {
		s.Logger.Debug("fs read ended early", "path", p, "error", err)
	}
	return nil, nil
}

// fsPath is the ?path= parameter, def when absent.
func fsPath(r *http.Request, def string) string {
	if p := r.URL.Query().Get("path"); p != "" {
		return p
	}
	return def
}

// localAllocDir checks that the allocation exists (404) and runs on this
// agent's client (501 otherwise), and returns its directory.
func (s *httpServer) localAllocDir(r *http.Request) (string, error) {
	id := r.PathValue("alloc")
	q, err := s.parseQuery(r)
	if err != nil {
		return "", err
	}
	q.MinQueryIndex, q.AllowStale = 0, true
	alloc, _, err := s.getAlloc(id, q)
	if err != nil {
		return "", err
	}
	if alloc == nil {
		return "", structs.NewCodedError(structs.ErrCodeNotFound, "unknown allocation %q", id)
	}
	d, ok := s.Logs.(AllocDirer)
	if s.Logs == nil || !ok || alloc.NodeID != s.Logs.NodeID() {
		return "", structs.NewCodedError(http.StatusNotImplemented, "alloc is not on this agent's client (node %s)", alloc.NodeID)
	}
	return d.AllocDir(id)
}
