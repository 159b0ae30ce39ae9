package acl

import "testing"

func mustACL(t *testing.T, srcs ...string) *ACL {
	t.Helper()
	var ps []*Policy
	for _, s := range srcs {
		p, err := Parse("", s)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return NewACL(false, ps)
}

func TestAllowNamespaceOperation(t *testing.T) {
	a := mustACL(t, `
namespace "default" { policy = "read" }
namespace "team-a" { policy = "write" }
namespace "team-*" { policy = "read" }
namespace "team-secret" { policy = "deny" }
namespace "prod-*" { capabilities = ["list-jobs"] }
namespace "prod-api-*" { capabilities = ["read-job"] }
namespace "*" { capabilities = ["parse-job"] }
`, `
namespace "team-a" { capabilities = ["alloc-node-exec"] }
namespace "team-secret" { policy = "write" }
namespace "default" { capabilities = ["deny"] }
`)
	cases := []struct {
		ns, op string
		want   bool
	}{
		{"team-a", "submit-job", true},
		{"team-a", "alloc-node-exec", true}, // unioned from the second policy
		{"team-b", "read-job", true},        // team-* glob
		{"team-b", "submit-job", false},     // glob is read only
		{"team-secret", "read-job", false},  // deny wins over a later write
		{"team-secret", "list-jobs", false}, // deny wins
		{"default", "list-jobs", false},     // deny capability wins over read
		{"prod-api-1", "read-job", true},    // closest glob: prod-api-* over prod-*
		{"prod-api-1", "list-jobs", false},  // … and only the closest counts
		{"prod-web", "list-jobs", true},     // prod-*
		{"other", "parse-job", true},        // * catches the rest
		{"other", "list-jobs", false},       //
		{"team-a", "sentinel-override", false},
	}
	for _, c := range cases {
		if got := a.AllowNamespaceOperation(c.ns, c.op); got != c.want {
			t.Errorf("AllowNamespaceOperation(%q, %q) = %v, want %v", c.ns, c.op, got, c.want)
		}
	}
	vis := map[string]bool{"team-a": true, "team-b": true, "team-secret": false, "default": false, "other": true}
	for ns, want := range vis {
		if got := a.AllowNamespace(ns); got != want {
			t.Errorf("AllowNamespace(%q) = %v, want %v", ns, got, want)
		}
	}
	none := mustACL(t, `node { policy = "read" }`)
	if none.AllowNamespace("default") || none.AllowNamespaceOperation("default", "list-jobs") {
		t.Error("no namespace rule must allow nothing")
	}
}

func TestLevels(t *testing.T) {
	type want struct{ agentR, agentW, nodeR, nodeW, opR, opW, quotaR, pluginL, pluginR bool }
	cases := []struct {
		name string
		srcs []string
		want want
	}{
		{"none", []string{`namespace "x" { policy = "read" }`}, want{}},
		{"read", []string{`agent { policy = "read" }
node { policy = "read" }
operator { policy = "read" }
quota { policy = "read" }
plugin { policy = "read" }`}, want{true, false, true, false, true, false, true, true, true}},
		{"write beats read", []string{`agent { policy = "read" }`, `agent { policy = "write" }
node { policy = "write" }`}, want{agentR: true, agentW: true, nodeR: true, nodeW: true}},
		{"deny beats write", []string{`node { policy = "write" }`, `node { policy = "deny" }`, `operator { policy = "write" }`},
			want{opR: true, opW: true}},
		{"plugin list", []string{`plugin { policy = "list" }`}, want{pluginL: true}},
	}
	for _, c := range cases {
		a := mustACL(t, c.srcs...)
		got := want{a.AllowAgentRead(), a.AllowAgentWrite(), a.AllowNodeRead(), a.AllowNodeWrite(),
			a.AllowOperatorRead(), a.AllowOperatorWrite(), a.AllowQuotaRead(), a.AllowPluginList(), a.AllowPluginRead()}
		if got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestManagementAndNil(t *testing.T) {
	for name, a := range map[string]*ACL{"management": NewACL(true, nil), "nil (ACLs off)": nil} {
		if !a.AllowNamespaceOperation("any", "alloc-node-exec") || !a.AllowNodeWrite() ||
			!a.AllowOperatorWrite() || !a.AllowAgentWrite() || !a.IsManagement() ||
			!a.AllowVariableOperation("x", "y", "write") || !a.AllowNodePoolOperation("p", "delete") {
			t.Errorf("%s does not allow everything", name)
		}
	}
	if mustACL(t, `node { policy = "write" }`).IsManagement() {
		t.Error("client ACL is management")
	}
}

func TestVariablesNodePoolsHostVolumes(t *testing.T) {
	a := mustACL(t, `
namespace "apps" {
  variables {
    path "*" { capabilities = ["list"] }
    path "app/*" { capabilities = ["read", "write"] }
    path "app/secret" { capabilities = ["deny"] }
  }
}
namespace "other-*" {
  variables {
    path "shared/*" { capabilities = ["read"] }
  }
}
namespace "blocked" {
  policy = "deny"
  variables {
    path "*" { capabilities = ["read"] }
  }
}
node_pool "prod" { policy = "read" }
node_pool "dev-*" { policy = "write" }
node_pool "dev-locked" { policy = "deny" }
host_volume "data" { policy = "read" }
host_volume "scratch-*" { policy = "write" }
operator { capabilities = ["snapshot-save"] }
`)
	vars := []struct {
		ns, path, op string
		want         bool
	}{
		{"apps", "app/web", "write", true},
		{"apps", "app/web", "read", true},
		{"apps", "app/web", "list", true},
		{"apps", "app/secret", "read", false},
		{"apps", "misc", "list", true},
		{"apps", "misc", "read", false},
		{"other-1", "shared/x", "read", true},
		{"other-1", "shared/x", "write", false},
		{"blocked", "anything", "read", false},
		{"nowhere", "x", "read", false},
	}
	for _, c := range vars {
		if got := a.AllowVariableOperation(c.ns, c.path, c.op); got != c.want {
			t.Errorf("AllowVariableOperation(%q, %q, %q) = %v, want %v", c.ns, c.path, c.op, got, c.want)
		}
	}
	pools := []struct {
		pool, op string
		want     bool
	}{
		{"prod", "read", true}, {"prod", "write", false}, {"dev-1", "delete", true},
		{"dev-locked", "read", false}, {"default", "read", false},
	}
	for _, c := range pools {
		if got := a.AllowNodePoolOperation(c.pool, c.op); got != c.want {
			t.Errorf("AllowNodePoolOperation(%q, %q) = %v, want %v", c.pool, c.op, got, c.want)
		}
	}
	if !a.AllowNodePool("prod") || a.AllowNodePool("dev-locked") {
		t.Error("AllowNodePool")
	}
	if !a.AllowHostVolumeOperation("data", "mount-readonly") || a.AllowHostVolumeOperation("data", "mount-readwrite") ||
		!a.AllowHostVolumeOperation("scratch-1", "mount-readwrite") {
		t.Error("host volumes")
	}
	if !a.AllowOperatorOperation("snapshot-save") || a.AllowOperatorOperation("license-read") || a.AllowOperatorRead() {
		t.Error("operator capabilities")
	}
}

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*", "abc", true}, {"a*", "bac", false},
		{"*c", "abc", true}, {"a*c", "abc", true}, {"a*c", "ac", true}, {"a*b*c", "aXbYc", true},
		{"a*b*c", "acb", false}, {"abc", "abc", true}, {"abc", "abcd", false}, {"a**", "a", true},
		{"ab*ba", "aba", false},
	}
	for _, c := range cases {
		if got := globMatch(c.pattern, c.name); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}
