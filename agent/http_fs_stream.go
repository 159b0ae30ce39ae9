package agent

import (
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/client/allocfs"
)

// fsStreamPoll is how often a followed file is checked for new bytes.
const fsStreamPoll = 250 * time.Millisecond

// fsStreamRoutes registers GET /v1/client/fs/stream/:alloc (`alloc fs
// -tail -f`), forwarded to the allocation's node like the other fs routes.
func (s *httpServer) fsStreamRoutes(h func(string, handlerFunc)) {
	h("GET /v1/client/fs/stream/{alloc}", s.clientRoute("alloc", acl.NamespaceCapabilityReadFS, s.fsStream))
}

// fsStream serves GET /v1/client/fs/stream/:alloc?path=&offset=&origin=
// start|end&follow=: a file of the allocation as JSON StreamFrames
// (api.AllocFS().Stream), from offset bytes after the start or before the
// end; with follow (the default, as Nomad) it keeps sending what is
// appended until the client goes away. A file truncated under it is
// followed from its new end, with a "file truncated" frame.
func (s *httpServer) fsStream(w http.ResponseWriter, r *http.Request) (any, error) {
	q := r.URL.Query()
	p := fsPath(r, "")
	if p == "" {
		return nil, badRequest("must provide a file path with ?path=")
	}
	var offset int64
	if v := q.Get("offset"); v != "" {
		off, err := strconv.ParseInt(v, 10, 64)
		if err != nil || off < 0 {
			return nil, badRequest("invalid offset %q", v)
		}
		offset = off
	}
	origin := q.Get("origin")
	if origin == "" {
		origin = "start"
	}
	if origin != "start" && origin != "end" {
		return nil, badRequest("origin must be start or end; got %q", origin)
	}
	follow := true
	if q.Has("follow") {
		var err error
		if follow, err = parseBool(r, "follow"); err != nil {
			return nil, err
		}
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
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pos := offset
	if origin == "end" {
		pos = max(0, fi.Size()-offset)
	}
	pos = min(pos, fi.Size())
	fw := &frameWriter{w: w, rc: http.NewResponseController(w), file: p, offset: pos}
	fw.start()
	if err := fw.rc.Flush(); err != nil {
		return nil, nil
	}
	var tick *time.Ticker
	if follow {
		tick = time.NewTicker(fsStreamPoll)
		defer tick.Stop()
	}
	for {
		n, err := io.Copy(fw, io.NewSectionReader(f, pos, 1<<62))
		pos += n
		if err != nil {
			s.Logger.Debug("fs stream ended", "path", p, "error", err)
			return nil, nil
		}
		if !follow {
			return nil, nil
		}
		select {
		case <-r.Context().Done():
			return nil, nil
		case <-tick.C:
		}
		if st, err := f.Stat(); err == nil && st.Size() < pos {
			pos = st.Size()
			fw.offset = pos
			if err := fw.enc.Encode(streamFrame{Offset: pos, File: p, FileEvent: "file truncated"}); err != nil {
				return nil, nil
			}
			_ = fw.rc.Flush()
		}
	}
}
