package cli

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
)

// monitorFrame is one stream frame of GET /v1/agent/monitor ({} is a
// heartbeat).
type monitorFrame struct {
	Data []byte `json:",omitempty"`
}

// agentMonitorCommand is `monitor [-log-level L] [-log-json] [-node-id N]
// [-server-id S]`: the agent's log from now on, at the level asked (the
// agent's own level does not limit it), until interrupted or the agent
// ends the stream.
func agentMonitorCommand(m *Meta, args []string) int {
	f := m.newFlags("monitor", "[options]")
	level := f.String("log-level", "info", "trace, debug, info, warn or error")
	asJSON := f.Bool("log-json", false, "log lines as JSON")
	node := f.String("node-id", "", "monitor the agent of this node's client")
	server := f.String("server-id", "", "the agent's own server (its name, or leader)")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	q := url.Values{"log_level": {*level}}
	if *asJSON {
		q.Set("log_json", "true")
	}
	if *node != "" {
		q.Set("node_id", *node)
	}
	if *server != "" {
		q.Set("server_id", *server)
	}
	resp, err := m.client(f).request(http.MethodGet, "/v1/agent/monitor", q, nil)
	if err != nil {
		return m.errorf("starting monitor: %v", err)
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	for {
		var fr monitorFrame
		if err := dec.Decode(&fr); err != nil {
			if errors.Is(err, io.EOF) {
				return exitOK
			}
			return m.errorf("reading the monitor stream: %v", err)
		}
		if _, err := m.Out.Write(fr.Data); err != nil {
			return exitError
		}
	}
}
