package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Three servers with ACLs on agree on tokens and policies after the leader
// is killed: every survivor, answering from its own state (?stale),
// resolves the team token, and the new leader refuses it in team-b and
// accepts it in team-a.
func TestACLTokensSurviveLeaderKill(t *testing.T) {
	servers := startRaftClusterWith(t, 3, "acl {\n  enabled = true\n}\n")
	addr := servers[0].addr
	cli := func(args ...string) result { return nomadishAt(t, addr, args...) }
	r := cli("acl", "bootstrap")
	if r.code != 0 {
		t.Fatalf("bootstrap: %v", r)
	}
	root := secretOf(t, r.out)
	pol := writeFile(t, "team-a.policy.hcl", "namespace \"team-a\" {\n  policy = \"write\"\n}\n")
	if r = cli("acl", "policy", "apply", "-token", root, "team-a", pol); r.code != 0 {
		t.Fatalf("policy: %v", r)
	}
	r = cli("acl", "token", "create", "-token", root, "-name", "team", "-policy", "team-a")
	if r.code != 0 {
		t.Fatalf("token: %v", r)
	}
	team := secretOf(t, r.out)

	leader := waitConvergedToken(t, servers, 3, 60*time.Second, root)
	var survivors []*serverProc
	for _, p := range servers {
		if p.rpcAddr == leader {
			p.kill()
		} else {
			survivors = append(survivors, p)
		}
	}
	eventually(t, 30*time.Second, "a new leader", func() (bool, string) {
		l := leaderOf(survivors[0].addr)
		return l != "" && l != leader, "no new leader"
	})
	// Each survivor answers from its own state (?stale): a follower that
	// was behind when the leader died catches up from the new one.
	for _, p := range survivors {
		eventually(t, 15*time.Second, p.name+" knows the token and the policy", func() (bool, string) {
			var self struct{ Name string }
			if err := getJSONToken(p.addr+"/v1/acl/token/self?stale", team, &self); err != nil || self.Name != "team" {
				return false, fmt.Sprintf("token self: %+v %v", self, err)
			}
			var stubs []struct{ Name string }
			if err := getJSONToken(p.addr+"/v1/acl/policies?stale", root, &stubs); err != nil || len(stubs) != 1 || stubs[0].Name != "team-a" {
				return false, fmt.Sprintf("policies: %+v %v", stubs, err)
			}
			return true, ""
		})
	}
	if r = nomadishAt(t, survivors[0].addr, "status", "-token", team, "-namespace", "team-b"); r.code != 1 || !strings.Contains(r.errOut, "Permission denied") {
		t.Fatalf("team token in team-b after failover: %v", r)
	}
	if r = nomadishAt(t, survivors[1].addr, "status", "-token", team, "-namespace", "team-a"); r.code != 0 {
		t.Fatalf("team token in team-a after failover: %v", r)
	}
}
