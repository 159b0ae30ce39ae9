package cli

import (
	"strings"
	"testing"
)

// TestAPIOptionSources: each API option comes from its flag, else
// NOMADISH_*, else NOMAD_*, and reaches the agent as Nomad's CLI sends it
// (token in X-Nomad-Token, region and namespace as query parameters).
func TestAPIOptionSources(t *testing.T) {
	f := newFakeAPI(t)
	for _, c := range []struct {
		name  string
		env   map[string]string
		args  []string
		token string
		query string // the query of GET /v1/jobs
	}{
		{name: "nothing", args: []string{"status"}},
		{name: "NOMAD_*",
			env:   map[string]string{"NOMAD_TOKEN": "t-nomad", "NOMAD_REGION": "eu", "NOMAD_NAMESPACE": "ns1"},
			args:  []string{"status"},
			token: "t-nomad", query: "namespace=ns1&region=eu"},
		{name: "NOMADISH_* wins over NOMAD_*",
			env: map[string]string{"NOMAD_TOKEN": "t-nomad", "NOMADISH_TOKEN": "t-ish",
				"NOMAD_REGION": "eu", "NOMADISH_REGION": "us", "NOMAD_NAMESPACE": "ns1", "NOMADISH_NAMESPACE": "ns2"},
			args:  []string{"status"},
			token: "t-ish", query: "namespace=ns2&region=us"},
		{name: "flags win over both",
			env:   map[string]string{"NOMAD_TOKEN": "t-nomad", "NOMADISH_TOKEN": "t-ish", "NOMADISH_REGION": "us"},
			args:  []string{"status", "-token", "t-flag", "-region=ap", "-namespace", "ns3"},
			token: "t-flag", query: "namespace=ns3&region=ap"},
		{name: "leading flags",
			args:  []string{"-token=t-lead", "-namespace", "ns4", "job", "status"},
			token: "t-lead", query: "namespace=ns4"},
	} {
		env := map[string]string{"NOMADISH_ADDR": f.srv.URL}
		for k, v := range c.env {
			env[k] = v
		}
		before := len(f.requests)
		code, _, errOut := runCLI(env, c.args...)
		if code != 0 || len(f.requests) != before+1 {
			t.Errorf("%s: exit %d, err %q, %d requests", c.name, code, errOut, len(f.requests)-before)
			continue
		}
		want := "GET /v1/jobs"
		if c.query != "" {
			want += "?" + c.query
		}
		if got := f.requests[before]; got != want {
			t.Errorf("%s: request %q, want %q", c.name, got, want)
		}
		if got := f.tokens[before]; got != c.token {
			t.Errorf("%s: X-Nomad-Token %q, want %q", c.name, got, c.token)
		}
	}
}

// TestAgentHelpHasNoAPIOptions: agent -h lists the agent's own flags; the
// API options are listed apart in an API command's help.
func TestAgentHelpHasNoAPIOptions(t *testing.T) {
	code, out, _ := runCLI(nil, "agent", "-h")
	if code != 0 || !strings.Contains(out, "-dev") || !strings.Contains(out, "-region") {
		t.Fatalf("agent -h: exit %d, out %q", code, out)
	}
	for _, o := range []string{"-address", "-token", "-ca-cert", "-namespace", "API options"} {
		if strings.Contains(out, o) {
			t.Errorf("agent -h lists %s:\n%s", o, out)
		}
	}
	if code, _, _ := runCLI(nil, "agent", "-token", "x"); code != 1 {
		t.Errorf("agent -token accepted: exit %d", code)
	}
	_, out, _ = runCLI(nil, "job", "status", "-h")
	own, api, ok := strings.Cut(out, "API options")
	if !ok || !strings.Contains(own, "-verbose") || strings.Contains(own, "-address") ||
		!strings.Contains(api, "-address") || !strings.Contains(api, "env NOMAD_TOKEN") {
		t.Errorf("job status -h:\n%s", out)
	}
}
