package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEphemeralDiskMigrateACLTLS: TestEphemeralDiskMigrate on a cluster
// with acl { enabled = true } and mutual TLS on RPC and HTTPS (one server,
// two client agents): the replacement's client fetches the previous
// allocation's data through its own agent over HTTPS with the migrate
// token the servers gave it, which the first node's agent checks; no ACL
// token is involved. A snapshot request without a token is refused.
func TestEphemeralDiskMigrateACLTLS(t *testing.T) {
	pki := t.TempDir()
	tlsPKI(t, pki)
	root := agentsDir(t)
	const aclBlock = "acl {\n  enabled = true\n}\n"
	srv := startConfiguredAgent(t, filepath.Join(root, "migsrv"),
		"server {\n  enabled = true\n  bootstrap_expect = 1\n}\n"+aclBlock+tlsBlock(pki, "global-server"))
	clientBody := fmt.Sprintf("client {\n  enabled = true\n  servers = [%q]\n}\nplugin \"raw_exec\" {\n  config {\n    enabled = true\n  }\n}\n", srv.rpcAddr) +
		aclBlock + tlsBlock(pki, "global-client")
	startConfiguredAgent(t, filepath.Join(root, "migtls1"), clientBody)
	second := startConfiguredAgent(t, filepath.Join(root, "migtls2"), clientBody)

	tlsCfg, err := cliTLS(pki)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg}, Timeout: 10 * time.Second}
	certFlags := []string{"-ca-cert", filepath.Join(pki, "nomad-agent-ca.pem"),
		"-client-cert", filepath.Join(pki, "global-cli-nomad.pem"), "-client-key", filepath.Join(pki, "global-cli-nomad-key.pem")}
	var token string
	// cli runs `nomadish <cmd...> <TLS and token flags> <args...>` against the server.
	cli := func(cmd []string, args ...string) result {
		full := append(append([]string{}, cmd...), certFlags...)
		if token != "" {
			full = append(full, "-token", token)
		}
		return nomadishAt(t, srv.addr, append(full, args...)...)
	}
	var r result
	eventually(t, 30*time.Second, "ACL bootstrap", func() (bool, string) {
		r = cli([]string{"acl", "bootstrap"})
		return r.code == 0, r.String()
	})
	token = secretOf(t, r.out)
	get := func(path string, out any) error {
		req, _ := http.NewRequest(http.MethodGet, srv.addr+path, nil)
		req.Header.Set("X-Nomad-Token", token)
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", path, resp.Status)
		}
		return json.NewDecoder(resp.Body).Decode(out)
	}
	ids := map[string]string{}
	eventually(t, 60*time.Second, "migtls1 and migtls2 ready", func() (bool, string) {
		var nodes []struct{ ID, Name, Status string }
		if err := get("/v1/nodes", &nodes); err != nil {
			return false, err.Error()
		}
		for _, n := range nodes {
			if n.Status == "ready" {
				ids[n.Name] = n.ID
			}
		}
		return len(ids) == 2, fmt.Sprintf("%+v", nodes)
	})
	drained, other := ids["migtls1"], ids["migtls2"]

	id := "e2e-migrate-acl"
	script := `d="$NOMAD_ALLOC_DIR/data"; if [ -f "$d/seen" ]; then echo "migrated from $(cat "$d/seen") with $(cat local/marker)"; fi
echo "$NOMAD_ALLOC_ID" > "$d/seen"; echo kept-local > local/marker; while true; do sleep 0.2; done`
	job := strings.Replace(rawExecJob(id, "service", "/bin/sh", []string{"-c", script}, 32), `group "g" {`, `group "g" {
    ephemeral_disk {
      migrate = true
      size    = 10
    }
    migrate {
      min_healthy_time = "1s"
    }`, 1)
	if r := cli([]string{"node", "eligibility"}, "-disable", other); r.code != 0 {
		t.Fatalf("node eligibility: %v", r)
	}
	if r := cli([]string{"job", "run"}, "-detach", writeFile(t, "migrate-acl.nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	t.Cleanup(func() { // before the agents stop (cleanups run last first): no task left behind
		cli([]string{"job", "stop"}, "-purge", id)
		eventually(t, 20*time.Second, "the job's tasks stopped", func() (bool, string) {
			out, err := exec.Command("pgrep", "-f", "kept-local").Output()
			return err != nil, string(out)
		})
	})
	allocs := func(what string, ok func(allocRow) bool, want int) []allocRow {
		var out []allocRow
		eventually(t, 60*time.Second, what, func() (bool, string) {
			out = nil
			if err := get("/v1/job/"+id+"/allocations", &out); err != nil {
				return false, err.Error()
			}
			n := 0
			for _, a := range out {
				if ok(a) {
					n++
				}
			}
			return n == want && len(out) == want, fmt.Sprintf("%+v", out)
		})
		return out
	}
	first := allocs("running on migtls1", func(a allocRow) bool { return a.ClientStatus == "running" && a.NodeID == drained }, 1)[0]

	// The snapshot route refuses a request without a token, on the agent
	// holding the allocation and through another one.
	// (The node tunnel to migtls1 may be coming up: 502 until then.)
	for _, addr := range []string{srv.addr, second.addr} {
		eventually(t, 15*time.Second, "403 for a snapshot without a token through "+addr, func() (bool, string) {
			resp, err := hc.Get(addr + "/v1/client/allocation/" + first.ID + "/snapshot")
			if err != nil {
				return false, err.Error()
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusForbidden, resp.Status
		})
	}

	if r := cli([]string{"node", "eligibility"}, "-enable", other); r.code != 0 {
		t.Fatalf("node eligibility: %v", r)
	}
	if r := cli([]string{"node", "drain"}, "-enable", "-deadline", "2m", "-yes", drained); r.code != 0 {
		t.Fatalf("node drain: %v", r)
	}
	var moved allocRow
	for _, a := range allocs("moved to migtls2", func(a allocRow) bool {
		return (a.NodeID == drained && a.ClientStatus == "complete") || (a.NodeID == other && a.ClientStatus == "running")
	}, 2) {
		if a.NodeID == other {
			moved = a
		}
	}
	want := "migrated from " + first.ID + " with kept-local\n"
	eventually(t, 15*time.Second, "the replacement's log", func() (bool, string) {
		r := cli([]string{"alloc", "logs"}, moved.ID, "t")
		return r.code == 0 && r.out == want, r.String()
	})
}
