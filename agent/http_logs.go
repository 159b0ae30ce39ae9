package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// maxFrameData bounds the data of one stream frame, as Nomad's framer does.
const maxFrameData = 64 << 10

// streamFrame is one frame of a framed log stream (api.StreamFrame): Data is
// base64 in JSON; Offset is the stream offset after Data.
type streamFrame struct {
	Offset    int64  `json:",omitempty"`
	Data      []byte `json:",omitempty"`
	File      string `json:",omitempty"`
	FileEvent string `json:",omitempty"`
}

// logsRequest holds the parameters of GET /v1/client/fs/logs/:alloc.
type logsRequest struct {
	allocID, task, logType, origin string
	offset                         int64
	follow, plain                  bool
}

func parseLogsRequest(r *http.Request) (*logsRequest, error) {
	q := r.URL.Query()
	lr := &logsRequest{allocID: r.PathValue("alloc"), task: q.Get("task"), logType: q.Get("type"), origin: q.Get("origin")}
	if lr.task == "" {
		return nil, badRequest("must include task name")
	}
	if lr.logType != "stdout" && lr.logType != "stderr" {
		return nil, badRequest("must provide log type (stdout/stderr)")
	}
	if lr.origin == "" {
		lr.origin = "start"
	}
	if lr.origin != "start" && lr.origin != "end" {
		return nil, badRequest("origin must be start or end; got %q", lr.origin)
	}
	if v := q.Get("offset"); v != "" {
		off, err := strconv.ParseInt(v, 10, 64)
		if err != nil || off < 0 {
			return nil, badRequest("invalid offset %q", v)
		}
		lr.offset = off
	}
	var err error
	if lr.follow, err = parseBool(r, "follow"); err != nil {
		return nil, err
	}
	if lr.plain, err = parseBool(r, "plain"); err != nil {
		return nil, err
	}
	return lr, nil
}

// allocLogs serves GET /v1/client/fs/logs/:alloc (task, type, follow,
// origin, offset, plain). With plain=true the body is the raw log bytes;
// otherwise a stream of JSON StreamFrames as api.AllocFS().Logs reads it.
// Each write of the client is sent (and flushed) at once. Logs of an
// allocation on another node are not proxied yet: 501.
func (s *httpServer) allocLogs(w http.ResponseWriter, r *http.Request) (any, error) {
	lr, err := parseLogsRequest(r)
	if err != nil {
		return nil, err
	}
	if err := s.checkLocalAlloc(r, lr); err != nil {
		return nil, err
	}
	fw := &frameWriter{w: w, rc: http.NewResponseController(w), plain: lr.plain,
		file: fmt.Sprintf("alloc/logs/%s.%s", lr.task, lr.logType)}
	if lr.origin == "start" {
		fw.offset = lr.offset
	}
	err = s.Logs.Logs(r.Context(), lr.allocID, lr.task, lr.logType, lr.origin, lr.offset, lr.follow, fw)
	if err != nil && !fw.started {
		return nil, err
	}
	if err != nil && !errors.Is(err, context.Canceled) && r.Context().Err() == nil {
		s.Logger.Warn("log stream ended with an error", "alloc_id", lr.allocID, "task", lr.task, "error", err)
	}
	fw.start()
	return nil, nil
}

// checkLocalAlloc looks the allocation up: 404 if unknown, 400 if it has no
// such task, 501 if this agent's client does not run it.
func (s *httpServer) checkLocalAlloc(r *http.Request, lr *logsRequest) error {
	q, err := s.parseQuery(r)
	if err != nil {
		return err
	}
	q.MinQueryIndex, q.AllowStale = 0, true
	alloc, _, err := s.getAlloc(lr.allocID, q)
	if err != nil {
		return err
	}
	if alloc == nil {
		return structs.ErrAllocNotFound
	}
	if alloc.Job != nil {
		tg := alloc.Job.LookupTaskGroup(alloc.TaskGroup)
		if tg == nil || tg.LookupTask(lr.task) == nil {
			return badRequest("unknown task name %q in allocation %s", lr.task, alloc.ID)
		}
	}
	if s.Logs == nil || alloc.NodeID != s.Logs.NodeID() {
		return structs.NewCodedError(http.StatusNotImplemented, "alloc is not on this agent's client (node %s)", alloc.NodeID)
	}
	return nil
}

// frameWriter is the io.Writer handed to the client's Logs: it sends each
// write as raw bytes (plain) or as frames, and flushes. Headers go out with
// the first write, so an error before any data still gets its status.
type frameWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	plain   bool
	file    string
	offset  int64
	started bool
	enc     *json.Encoder
}

func (f *frameWriter) start() {
	if f.started {
		return
	}
	f.started = true
	ct := "application/json"
	if f.plain {
		ct = "text/plain; charset=utf-8"
	}
	f.w.Header().Set("Content-Type", ct)
	f.w.WriteHeader(http.StatusOK)
	f.enc = json.NewEncoder(f.w)
}

func (f *frameWriter) Write(p []byte) (int, error) {
	f.start()
	if f.plain {
		n, err := f.w.Write(p)
		if err == nil {
			err = f.rc.Flush()
		}
		return n, err
	}
	for rest := p; len(rest) > 0; {
		chunk := rest[:min(len(rest), maxFrameData)]
		rest = rest[len(chunk):]
		f.offset += int64(len(chunk))
		if err := f.enc.Encode(streamFrame{Offset: f.offset, Data: chunk, File: f.file}); err != nil {
			return len(p) - len(rest) - len(chunk), err
		}
	}
	return len(p), f.rc.Flush()
}
