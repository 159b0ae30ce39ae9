package drivers

import "strings"

// agentOnlyEnvPrefixes name the variables of the agent's own environment
// that never reach a driver plugin, hence never a task: the operator's API
// address, token and TLS files of the CLI (NOMAD_ADDR, NOMAD_TOKEN,
// NOMAD_CACERT, ...), nomadish's own (NOMADISH_*), and the official
// client's (CONSUL_HTTP_TOKEN, VAULT_TOKEN are a token by another name).
var agentOnlyEnvPrefixes = []string{"NOMAD_", "NOMADISH_", "CONSUL_HTTP_TOKEN", "VAULT_TOKEN"}

// pluginEnv returns environ without the agent-only variables. A driver
// plugin gets this environment; tasks get only the one the client builds
// for them (base.TaskConfig.Env), and this is the second fence: a task that
// reads its plugin's /proc/<pid>/environ finds no credentials either.
func pluginEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !agentOnly(name) {
			out = append(out, kv)
		}
	}
	return out
}

func agentOnly(name string) bool {
	up := strings.ToUpper(name)
	for _, p := range agentOnlyEnvPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	return false
}
