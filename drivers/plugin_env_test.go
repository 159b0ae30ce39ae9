package drivers

import (
	"slices"
	"testing"
)

func TestPluginEnvDropsAgentCredentials(t *testing.T) {
	in := []string{"PATH=/bin", "NOMAD_TOKEN=t", "NOMAD_ADDR=http://x", "NOMAD_CACERT=/ca", "nomad_token=t",
		"NOMADISH_TOKEN=t", "CONSUL_HTTP_TOKEN=t", "VAULT_TOKEN=t", "HOME=/root", "DOCKER_HOST=unix:///d.sock", "MY_NOMAD_X=1"}
	got := pluginEnv(in)
	want := []string{"PATH=/bin", "HOME=/root", "DOCKER_HOST=unix:///d.sock", "MY_NOMAD_X=1"}
	if !slices.Equal(got, want) {
		t.Errorf("pluginEnv = %q, want %q", got, want)
	}
}
