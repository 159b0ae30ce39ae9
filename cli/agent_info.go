package cli

import (
	"encoding/json"
	"fmt"
	"sort"
)

// agentSelf is the part of GET /v1/agent/self agent-info prints.
type agentSelf struct {
	Config map[string]any               `json:"config"`
	Member map[string]any               `json:"member"`
	Stats  map[string]map[string]string `json:"stats"`
}

// agentInfoCommand is `agent-info [-json]`: the agent's stats by section
// (agent, client, nomad, raft, runtime, serf), keys sorted, as Nomad prints
// them; -json prints the whole /v1/agent/self answer.
func agentInfoCommand(m *Meta, args []string) int {
	f := m.newFlags("agent-info", "[options]")
	asJSON := f.Bool("json", false, "print the agent's /v1/agent/self answer as JSON")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	var self agentSelf
	if _, err := m.client(f).get("/v1/agent/self", nil, &self); err != nil {
		return m.errorf("querying agent info: %v", err)
	}
	if *asJSON {
		out, err := json.MarshalIndent(self, "", "    ")
		if err != nil {
			return m.errorf("encoding agent info: %v", err)
		}
		fmt.Fprintln(m.Out, string(out))
		return exitOK
	}
	sections := make([]string, 0, len(self.Stats))
	for s := range self.Stats {
		sections = append(sections, s)
	}
	sort.Strings(sections)
	for _, s := range sections {
		fmt.Fprintln(m.Out, s)
		keys := make([]string, 0, len(self.Stats[s]))
		for k := range self.Stats[s] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(m.Out, "  %s = %s\n", k, self.Stats[s][k])
		}
	}
	return exitOK
}
