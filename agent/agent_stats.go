package agent

import (
	"runtime"
	"strconv"
)

// addStats completes /v1/agent/self's stats with the sections and keys
// Nomad puts there that info does not: "agent" (which parts run), "serf"
// on a server, the client's counts.
func (a *Agent) addStats(inf *agentInfo) {
	inf.Stats["agent"] = map[string]string{"server": strconv.FormatBool(a.server != nil), "client": strconv.FormatBool(a.client != nil)}
	if a.server != nil {
		inf.Stats["serf"] = a.server.Cluster().SerfStats()
	}
	if a.client != nil && inf.Stats["client"] != nil {
		for k, v := range a.client.Stats() {
			inf.Stats["client"][k] = v
		}
	}
}

// runtimeExtraStats are the runtime keys Nomad reports beyond
// runtimeStats's.
func runtimeExtraStats(m map[string]string) map[string]string {
	m["kernel.name"] = runtime.GOOS
	m["cpu_count"] = strconv.Itoa(runtime.NumCPU())
	return m
}
