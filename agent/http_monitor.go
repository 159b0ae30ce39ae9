package agent

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
)

// monitorHeartbeat is how often an idle monitor stream sends an empty
// frame (wall time: a network keep-alive).
const monitorHeartbeat = 10 * time.Second

// agentMonitor serves GET /v1/agent/monitor?log_level=&log_json=&plain=
// &node_id=&server_id=: the agent's log from now on, at log_level (default
// info) whatever the agent's own level, as JSON stream frames
// {"Data":"<base64>"} (plain=true: the raw lines). node_id names another
// node's client: the request is forwarded to that agent over the node
// tunnel. server_id must name this agent's server (or be "leader" on the
// leader): other servers are not reached (400; monitor their agent).
func (s *httpServer) agentMonitor(w http.ResponseWriter, r *http.Request) (any, error) {
	q := r.URL.Query()
	levelName := q.Get("log_level")
	if levelName == "" {
		levelName = "info"
	}
	level := hclog.LevelFromString(levelName)
	if level == hclog.NoLevel {
		return nil, badRequest("Unknown log level: %s", levelName)
	}
	jsonFormat, plain := false, false
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"log_json", &jsonFormat}, {"plain", &plain}} {
		if v := q.Get(b.name); v != "" {
			p, err := strconv.ParseBool(v)
			if err != nil {
				return nil, badRequest("Unknown option for %s: %v", b.name, err)
			}
			*b.dst = p
		}
	}
	if node := q.Get("node_id"); node != "" && (s.Logs == nil || node != s.Logs.NodeID()) {
		if s.Nodes == nil || r.Header.Get(forwardedHeader) != "" {
			return nil, badRequest("node %s is not this agent's client and cannot be reached from here", node)
		}
		return nil, s.forwardToNode(w, r, node)
	}
	if id := q.Get("server_id"); id != "" && !s.isThisServer(id) {
		return nil, badRequest("server_id %q is not this agent's server: monitor that server's agent directly", id)
	}
	if s.LogSinks == nil {
		return nil, badRequest("this agent's logger cannot be monitored")
	}
	mon := newLogMonitor(s.LogSinks, level, jsonFormat)
	defer mon.Stop()
	return nil, s.streamMonitor(w, r, mon, plain)
}

// streamMonitor writes mon's lines to w until the request ends.
func (s *httpServer) streamMonitor(w http.ResponseWriter, r *http.Request, mon *logMonitor, plain bool) error {
	rc := http.NewResponseController(w)
	ct := "application/json"
	if plain {
		ct = "text/plain; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	send := func(data []byte) error {
		var err error
		if plain {
			_, err = w.Write(data)
		} else {
			err = enc.Encode(streamFrame{Data: data})
		}
		if err == nil {
			err = rc.Flush()
		}
		return err
	}
	if err := rc.Flush(); err != nil {
		return nil // the caller left
	}
	tick := time.NewTicker(monitorHeartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case line := <-mon.lines:
			if note := mon.takeDropped(); note != "" {
				line = append([]byte(note), line...)
			}
			if send(line) != nil {
				return nil
			}
		case <-tick.C:
			if !plain && (enc.Encode(struct{}{}) != nil || rc.Flush() != nil) {
				return nil
			}
		}
	}
}

// isThisServer reports whether id names this agent's server: its member
// name (with or without the region), or "leader" when it leads.
func (s *httpServer) isThisServer(id string) bool {
	info := s.self()
	if info.MemberName == "" {
		return false
	}
	if id == "leader" {
		return info.Stats["nomad"]["leader"] == "true"
	}
	name, _, _ := strings.Cut(info.MemberName, ".")
	return id == info.MemberName || id == name
}
