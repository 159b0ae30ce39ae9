package agent

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// TestEveryRouteDeclaresACL: every route the agent serves declares what
// it needs of a token, and every declaration names a served route.
func TestEveryRouteDeclaresACL(t *testing.T) {
	s := newHTTPServer(httpDeps{RPC: newFakeRPC(), ACLEnabled: true, EnableDebug: true, UIEnabled: true})
	if len(s.undeclared) > 0 {
		t.Fatalf("routes without an ACL need in routeNeeds: %v", s.undeclared)
	}
	served := servedPatterns(t)
	for p := range routeNeeds {
		if !served[p] {
			t.Errorf("routeNeeds declares %q, which no route serves", p)
		}
	}
}

// servedPatterns registers the routes again with a recording mux.
func servedPatterns(t *testing.T) map[string]bool {
	t.Helper()
	s := newHTTPServer(httpDeps{RPC: newFakeRPC(), EnableDebug: true, UIEnabled: true}) // enable_debug and ui: their routes too
	out := map[string]bool{}
	for p := range routeNeeds {
		m, path, _ := strings.Cut(p, " ")
		req, _ := http.NewRequest(m, "http://x"+fillPath(path), nil)
		if _, pat := s.mux.Handler(req); pat == p {
			out[p] = true
		}
	}
	return out
}

var pathParam = regexp.MustCompile(`\{[a-z]+\}`)

// "{$}" ends a pattern (GET /{$}: the root alone) and fills with nothing.
func fillPath(p string) string {
	return pathParam.ReplaceAllString(strings.ReplaceAll(p, "{$}", ""), "x-id")
}

// holdingPolicy is a policy granting exactly need.
func holdingPolicy(n routeNeed) string {
	switch n.Kind {
	case needNamespace:
		return fmt.Sprintf("namespace \"default\" {\n  capabilities = [%q]\n}\n", n.Cap)
	case needNode, needAgent, needOperator:
		return fmt.Sprintf("%s {\n  policy = %q\n}\n", n.Kind, n.Cap)
	}
	return ""
}

// TestRouteTableACL runs every route of the table on an agent with ACLs
// on: without a token and with a token lacking the route's need it is
// refused with 403; with a token holding exactly the need (management for
// management routes) it is not. Routes whose need is checked on the
// object they name (or by the /v1/acl endpoints) are refused without a
// token or answer 404 for an object that does not exist, never 2xx.
func TestRouteTableACL(t *testing.T) {
	_, c := aclAgent(t)
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	mgmt, _ := api.NewClient(&api.Config{Address: c.Address(), SecretID: root.SecretID})
	if _, err := mgmt.ACLPolicies().Upsert(&api.ACLPolicy{Name: "unrelated", Rules: "namespace \"other\" {\n  policy = \"write\"\n}\n"}, nil); err != nil {
		t.Fatal(err)
	}
	lacking, _, err := mgmt.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{"unrelated"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	holders := map[string]string{} // policy rules -> token secret
	holder := func(n routeNeed) string {
		if n.Kind == needManagement {
			return root.SecretID
		}
		rules := holdingPolicy(n)
		if sec, ok := holders[rules]; ok {
			return sec
		}
		name := fmt.Sprintf("p%d", len(holders))
		if _, err := mgmt.ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: rules}, nil); err != nil {
			t.Fatalf("policy %q: %v", rules, err)
		}
		tok, _, err := mgmt.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{name}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		holders[rules] = tok.SecretID
		return tok.SecretID
	}
	do := func(pattern, token string) (int, string) {
		m, path, _ := strings.Cut(pattern, " ")
		var body *strings.Reader
		if m == "PUT" || m == "POST" {
			body = strings.NewReader("{}")
		} else {
			body = strings.NewReader("")
		}
		q := "?namespace=default"
		if strings.HasPrefix(path, "/debug/pprof/") {
			q += "&seconds=1" // a CPU profile or trace of 1 s, not 30
		}
		req, _ := http.NewRequest(m, c.Address()+fillPath(path)+q, body)
		if token != "" {
			req.Header.Set("X-Nomad-Token", token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		defer resp.Body.Close()
		b := make([]byte, 200)
		n, _ := resp.Body.Read(b)
		return resp.StatusCode, string(b[:n])
	}
	for pattern, need := range routeNeeds {
		t.Run(pattern, func(t *testing.T) {
			switch need.Kind {
			case needNone:
				return // status, health, metrics, bootstrap: open by design
			case needObject, needSelf, needMigrate:
				// An empty list ("[]": nothing the token may see) is no leak.
				if code, msg := do(pattern, ""); code != 403 && code != 404 && code != 400 && !(code == 200 && strings.TrimSpace(msg) == "[]") {
					t.Errorf("no token: %d %s, want 403 (or 404/400 for an object that does not exist, or an empty list)", code, msg)
				}
				return
			}
			if code, msg := do(pattern, ""); code != 403 {
				t.Errorf("no token: %d %s, want 403", code, msg)
			}
			if code, msg := do(pattern, lacking.SecretID); code != 403 {
				t.Errorf("token lacking %s %s: %d %s, want 403", need.Kind, need.Cap, code, msg)
			}
			if code, msg := do(pattern, holder(need)); code == 403 {
				t.Errorf("token holding %s %s: 403 %s", need.Kind, need.Cap, msg)
			}
		})
	}
}
