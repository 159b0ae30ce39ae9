package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// getJSONToken is getJSON with an X-Nomad-Token header.
func getJSONToken(url, token string, out any) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("X-Nomad-Token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: %s: %s", url, resp.Status, b)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// secretOf finds "Secret ID = <uuid>" in a token printout.
func secretOf(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`Secret ID\s+=\s+(\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no Secret ID in:\n%s", out)
	}
	return m[1]
}

// End to end on a real agent with acl { enabled = true }, through the CLI:
// bootstrap once (and again only with the reset file); the anonymous user
// can't list jobs; a bad policy file is refused with file:line:col; a
// team-a write token runs a job in team-a, can't see or stop a job in
// team-b; a management token sees both; an expired token is refused.
func TestACLEndToEnd(t *testing.T) {
	base := agentsDir(t)
	a, err := startAgent(filepath.Join(base, "acl"), true, "",
		"acl {\n  enabled = true\n  token_min_expiration_ttl = \"1s\"\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	defer a.stop()
	waitLeader(t, a.addr, 30*time.Second)
	cli := func(args ...string) result { return nomadishAt(t, a.addr, args...) }

	r := cli("acl", "bootstrap")
	if r.code != 0 || !strings.Contains(r.out, "Type         = management") {
		t.Fatalf("bootstrap: %v", r)
	}
	root := secretOf(t, r.out)
	r = cli("acl", "bootstrap")
	m := regexp.MustCompile(`ACL bootstrap already done \(reset index: (\d+)\)`).FindStringSubmatch(r.errOut)
	if r.code != 1 || m == nil {
		t.Fatalf("second bootstrap: %v", r)
	}
	resetFile := filepath.Join(base, "acl", "data", "server", "acl-bootstrap-reset")
	if err := os.MkdirAll(filepath.Dir(resetFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(resetFile, []byte(m[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	if r = cli("acl", "bootstrap"); r.code != 0 {
		t.Fatalf("bootstrap with the reset file: %v", r)
	}
	root2 := secretOf(t, r.out)

	if r = cli("status"); r.code != 1 || !strings.Contains(r.errOut, "Permission denied") {
		t.Fatalf("anonymous status: %v", r)
	}

	bad := writeFile(t, "bad.policy.hcl", "namespace \"team-a\" {\n  policy = \"write\"\n  capabilities = [\"alloc-exce\"]\n}\n")
	r = cli("acl", "policy", "apply", "-token", root, "team-a", bad)
	if r.code != 1 || !strings.Contains(r.errOut, `bad.policy.hcl:3:19: Invalid capability; "alloc-exce" is not a namespace capability. Did you mean "alloc-exec"?`) {
		t.Fatalf("bad policy: %v", r)
	}
	good := writeFile(t, "team-a.policy.hcl", "namespace \"team-a\" {\n  policy = \"write\"\n}\n")
	if r = cli("acl", "policy", "apply", "-token", root, "-description", "team A", "team-a", good); r.code != 0 {
		t.Fatalf("policy apply: %v", r)
	}
	if r = cli("acl", "policy", "list", "-token", root); r.code != 0 || !strings.Contains(r.out, "team A") {
		t.Fatalf("policy list: %v", r)
	}
	r = cli("acl", "token", "create", "-token", root, "-name", "team-a", "-policy", "team-a")
	if r.code != 0 {
		t.Fatalf("token create: %v", r)
	}
	teamA := secretOf(t, r.out)
	if r = cli("acl", "token", "self", "-token", teamA); r.code != 0 || !strings.Contains(r.out, "team-a") {
		t.Fatalf("token self: %v", r)
	}

	for _, ns := range []string{"team-a", "team-b"} { // jobs need their namespace to exist
		if r = cli("namespace", "apply", "-token", root2, ns); r.code != 0 {
			t.Fatalf("namespace apply %s: %v", ns, r)
		}
	}
	jobA := strings.Replace(rawExecJob("acl-a", "service", "/bin/sleep", []string{"300"}, 32), `job "acl-a" {`, "job \"acl-a\" {\n  namespace = \"team-a\"", 1)
	if r = cli("job", "run", "-detach", "-token", teamA, "-namespace", "team-a", writeFile(t, "a.nomad.hcl", jobA)); r.code != 0 {
		t.Fatalf("team-a job run: %v", r)
	}
	jobB := strings.Replace(rawExecJob("acl-b", "service", "/bin/sleep", []string{"300"}, 32), `job "acl-b" {`, "job \"acl-b\" {\n  namespace = \"team-b\"", 1)
	bPath := writeFile(t, "b.nomad.hcl", jobB)
	if r = cli("job", "run", "-detach", "-token", teamA, "-namespace", "team-b", bPath); r.code != 1 || !strings.Contains(r.errOut, "Permission denied") {
		t.Fatalf("team-a token ran a job in team-b: %v", r)
	}
	if r = cli("job", "run", "-detach", "-token", root2, "-namespace", "team-b", bPath); r.code != 0 {
		t.Fatalf("management job run: %v", r)
	}
	if r = cli("job", "status", "-token", teamA, "-namespace", "team-a", "acl-a"); r.code != 0 {
		t.Fatalf("team-a job status: %v", r)
	}
	if r = cli("job", "status", "-token", teamA, "-namespace", "team-b", "acl-b"); r.code != 1 || !strings.Contains(r.errOut, "Permission denied") {
		t.Fatalf("team-a saw team-b's job: %v", r)
	}
	if r = cli("job", "stop", "-token", teamA, "-namespace", "team-b", "acl-b"); r.code != 1 || !strings.Contains(r.errOut, "Permission denied") {
		t.Fatalf("team-a stopped team-b's job: %v", r)
	}
	if r = cli("status", "-token", root2, "-namespace", "team-b", "acl-b"); r.code != 0 || !strings.Contains(r.out, "acl-b") {
		t.Fatalf("management status of team-b's job: %v", r)
	}

	// Client endpoints: exec into a raw_exec task needs alloc-node-exec
	// besides alloc-exec; logs need read-logs; nodes need node read.
	allocID := ""
	eventually(t, 30*time.Second, "acl-a running", func() (bool, string) {
		var allocs []struct{ ID, ClientStatus string }
		err := getJSONToken(a.addr+"/v1/job/acl-a/allocations?namespace=team-a", teamA, &allocs)
		for _, al := range allocs {
			if al.ClientStatus == "running" {
				allocID = al.ID
				return true, ""
			}
		}
		return false, fmt.Sprint(allocs, err)
	})
	if r = cli("alloc", "exec", "-token", teamA, "-namespace", "team-a", allocID, "/bin/echo", "hi"); r.code == 0 || !strings.Contains(r.errOut, "Permission denied") {
		t.Fatalf("exec into raw_exec without alloc-node-exec: %v", r)
	}
	nodeExec := writeFile(t, "node-exec.policy.hcl", "namespace \"team-a\" {\n  capabilities = [\"alloc-node-exec\"]\n}\n")
	readOnly := writeFile(t, "ro.policy.hcl", "namespace \"team-a\" {\n  policy = \"read\"\n}\n")
	for name, file := range map[string]string{"node-exec": nodeExec, "ro": readOnly} {
		if r = cli("acl", "policy", "apply", "-token", root, name, file); r.code != 0 {
			t.Fatalf("policy %s: %v", name, r)
		}
	}
	r = cli("acl", "token", "create", "-token", root, "-policy", "team-a", "-policy", "node-exec")
	if r.code != 0 {
		t.Fatalf("token: %v", r)
	}
	execer := secretOf(t, r.out)
	if r = cli("alloc", "exec", "-token", execer, "-namespace", "team-a", allocID, "/bin/echo", "hi"); r.code != 0 || !strings.Contains(r.out, "hi") {
		t.Fatalf("exec with alloc-node-exec: %v", r)
	}
	r = cli("acl", "token", "create", "-token", root, "-policy", "ro")
	if r.code != 0 {
		t.Fatalf("token: %v", r)
	}
	ro := secretOf(t, r.out)
	if r = cli("alloc", "logs", "-token", ro, "-namespace", "team-a", allocID); r.code == 0 || !strings.Contains(r.errOut, "Permission denied") {
		t.Fatalf("logs without read-logs: %v", r)
	}
	if r = cli("alloc", "logs", "-token", teamA, "-namespace", "team-a", allocID); r.code != 0 {
		t.Fatalf("logs with read-logs: %v", r)
	}
	if r = cli("node", "status", "-token", teamA); r.code == 0 || !strings.Contains(r.errOut, "Permission denied") {
		t.Fatalf("node status without node read: %v", r)
	}
	if r = cli("node", "status", "-token", root); r.code != 0 {
		t.Fatalf("node status with management: %v", r)
	}

	r = cli("acl", "token", "create", "-token", root, "-policy", "team-a", "-ttl", "2s")
	if r.code != 0 {
		t.Fatalf("short token: %v", r)
	}
	short := secretOf(t, r.out)
	if r = cli("acl", "token", "self", "-token", short); r.code != 0 {
		t.Fatalf("fresh short token: %v", r)
	}
	eventually(t, 10*time.Second, "the short token expires", func() (bool, string) {
		r := cli("job", "status", "-token", short, "-namespace", "team-a", "acl-a")
		return r.code == 1 && strings.Contains(r.errOut, "ACL token expired"), r.String()
	})

	for _, ns := range []string{"team-a", "team-b"} {
		cli("job", "stop", "-token", root2, "-namespace", ns, "-purge", "acl-"+ns[len(ns)-1:])
	}
}
