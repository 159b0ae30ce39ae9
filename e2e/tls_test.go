package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/nomadish/nomadish/internal/testbin"
)

// tlsPKI runs `nomadish tls ca create` and `tls cert create` in dir: a
// server, a client and a CLI certificate for region global, and a client
// certificate for region "other".
func tlsPKI(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"tls", "ca", "create"},
		{"tls", "cert", "create", "-server"},
		{"tls", "cert", "create", "-client"},
		{"tls", "cert", "create", "-cli"},
		{"tls", "cert", "create", "-client", "-region", "other"},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("nomadish %v: %v\n%s", args, err, out)
		}
	}
}

// tlsBlock is the agent tls block using the cert files base-nomad.pem.
func tlsBlock(pki, base string) string {
	return fmt.Sprintf(`tls {
  http = true
  rpc  = true
  ca_file   = %q
  cert_file = %q
  key_file  = %q
  verify_server_hostname = true
  verify_https_client    = true
}
`, filepath.Join(pki, "nomad-agent-ca.pem"), filepath.Join(pki, base+"-nomad.pem"), filepath.Join(pki, base+"-nomad-key.pem"))
}

// startConfiguredAgent starts `nomadish agent -config` with body (plus
// data_dir, bind_addr and free ports) under dir; addr is https://.
func startConfiguredAgent(t *testing.T, dir, body string) *agentProc {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ports, err := testbin.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("name = %q\ndata_dir = %q\nbind_addr = \"127.0.0.1\"\nports {\n  http = %d\n  rpc  = %d\n  serf = %d\n}\n%s",
		filepath.Base(dir), filepath.Join(dir, "data"), ports[0], ports[1], ports[2], body)
	cfgPath := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &agentProc{addr: fmt.Sprintf("https://127.0.0.1:%d", ports[0]), rpcAddr: fmt.Sprintf("127.0.0.1:%d", ports[1]),
		logPath: filepath.Join(dir, "agent.log"), done: make(chan struct{})}
	logf, err := os.Create(a.logPath)
	if err != nil {
		t.Fatal(err)
	}
	a.cmd = agentCommand(dir, bin, "agent", "-config", cfgPath)
	a.cmd.Stdout, a.cmd.Stderr = logf, logf
	if err := a.cmd.Start(); err != nil {
		logf.Close()
		t.Fatal(err)
	}
	go func() { _ = a.cmd.Wait(); logf.Close(); close(a.done) }()
	t.Cleanup(func() {
		a.stop()
		if t.Failed() {
			t.Logf("%s log (tail):\n%s", filepath.Base(dir), a.logTail())
		}
	})
	return a
}

// httpsGet GETs url with the CLI certificate and decodes a 200 answer.
func httpsGet(hc *http.Client, url string, out any) error {
	resp, err := hc.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func logHas(a *agentProc, s string) bool {
	b, _ := os.ReadFile(a.logPath)
	return strings.Contains(string(b), s)
}

// TestMutualTLS runs a server agent and client agents with mutual TLS on
// RPC and HTTPS: a client with a global client certificate registers and
// runs a job; one with a certificate for region "other" and one without
// TLS are refused (their nodes never register, the server log says why);
// plain HTTP to the HTTPS port fails; the CLI works with -ca-cert and the
// client certificate flags.
func TestMutualTLS(t *testing.T) {
	pki := t.TempDir()
	tlsPKI(t, pki)
	root := agentsDir(t)
	srv := startConfiguredAgent(t, filepath.Join(root, "tlsserver"),
		"server {\n  enabled = true\n  bootstrap_expect = 1\n}\n"+tlsBlock(pki, "global-server"))
	clientCfg := func(certBase string) string {
		body := fmt.Sprintf("client {\n  enabled = true\n  servers = [%q]\n}\nplugin \"raw_exec\" {\n  config {\n    enabled = true\n  }\n}\n", srv.rpcAddr)
		if certBase != "" {
			body += tlsBlock(pki, certBase)
		}
		return body
	}
	startConfiguredAgent(t, filepath.Join(root, "tlsclient"), clientCfg("global-client"))
	bad := startConfiguredAgent(t, filepath.Join(root, "otherregion"), clientCfg("other-client"))
	plain := startConfiguredAgent(t, filepath.Join(root, "plaintext"), clientCfg(""))

	tlsCfg, err := cliTLS(pki)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg}, Timeout: 5 * time.Second}
	eventually(t, 60*time.Second, "tlsclient ready over mutual TLS", func() (bool, string) {
		var nodes []struct{ Name, Status string }
		if err := httpsGet(hc, srv.addr+"/v1/nodes", &nodes); err != nil {
			return false, err.Error()
		}
		for _, n := range nodes {
			if n.Name == "tlsclient" && n.Status == "ready" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", nodes)
	})

	// The CLI: with the CA and the cli certificate it works; without the
	// CA the agent's certificate is not trusted.
	certFlags := []string{"-ca-cert", filepath.Join(pki, "nomad-agent-ca.pem"),
		"-client-cert", filepath.Join(pki, "global-cli-nomad.pem"), "-client-key", filepath.Join(pki, "global-cli-nomad-key.pem")}
	job := writeFile(t, "tls.nomad.hcl", `job "tlsjob" {
  update {
    min_healthy_time = "1s"
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["300"]
      }
    }
  }
}
`)
	if r := nomadishAt(t, srv.addr, append([]string{"job", "run"}, append(certFlags, job)...)...); r.code != 0 {
		t.Fatalf("job run over HTTPS: %v", r)
	}
	eventually(t, 60*time.Second, "tlsjob running on tlsclient", func() (bool, string) {
		var allocs []struct{ ClientStatus, NodeName string }
		if err := httpsGet(hc, srv.addr+"/v1/job/tlsjob/allocations", &allocs); err != nil {
			return false, err.Error()
		}
		return len(allocs) == 1 && allocs[0].ClientStatus == "running", fmt.Sprintf("%+v", allocs)
	})
	if r := nomadishAt(t, srv.addr, "status"); r.code == 0 {
		t.Fatalf("CLI without -ca-cert reached the HTTPS agent: %v", r)
	}
	// Nomad's own Go client, with its TLS settings, works unchanged.
	nc, err := nomadapi.NewClient(&nomadapi.Config{Address: srv.addr, TLSConfig: &nomadapi.TLSConfig{
		CACert: filepath.Join(pki, "nomad-agent-ca.pem"), ClientCert: filepath.Join(pki, "global-cli-nomad.pem"),
		ClientKey: filepath.Join(pki, "global-cli-nomad-key.pem")}})
	if err != nil {
		t.Fatal(err)
	}
	if jobs, _, err := nc.Jobs().List(nil); err != nil || len(jobs) != 1 || jobs[0].ID != "tlsjob" {
		t.Fatalf("official client over HTTPS: %+v %v", jobs, err)
	}
	if r := nomadishAt(t, srv.addr, append([]string{"job", "stop", "-purge"}, append(certFlags, "tlsjob")...)...); r.code != 0 {
		t.Logf("job stop: %v", r)
	}
	checkRefusals(t, srv, hc)
	if bad.exited() || plain.exited() {
		t.Logf("a refused client exited (fine): other=%v plain=%v", bad.exited(), plain.exited())
	}
}

// checkRefusals checks that plain HTTP to the HTTPS port fails and that the
// server refused the region-other and plaintext clients (its log says why,
// their nodes never registered).
func checkRefusals(t *testing.T, srv *agentProc, hc *http.Client) {
	t.Helper()
	// Plain HTTP to the HTTPS port is refused.
	if resp, err := http.Get(strings.Replace(srv.addr, "https://", "http://", 1) + "/v1/status/leader"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatal("plain HTTP answered 200 on the HTTPS port")
		}
	}

	// The refused clients: the server says why, and their nodes never
	// registered (the good client registered long ago, and they have been
	// retrying since before it).
	eventually(t, 30*time.Second, "server log refuses the region-other and plaintext clients", func() (bool, string) {
		return logHas(srv, "peer certificate not valid for the expected name") &&
			logHas(srv, "refusing plaintext RPC connection"), "server log lacks the refusals"
	})
	var nodes []struct{ Name string }
	if err := httpsGet(hc, srv.addr+"/v1/nodes", &nodes); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Name == "otherregion" || n.Name == "plaintext" {
			t.Fatalf("refused client %s registered: %+v", n.Name, nodes)
		}
	}
}

// cliTLS is the HTTPS client config of the cli certificate.
func cliTLS(pki string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(filepath.Join(pki, "global-cli-nomad.pem"), filepath.Join(pki, "global-cli-nomad-key.pem"))
	if err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(filepath.Join(pki, "nomad-agent-ca.pem"))
	if err != nil {
		return nil, err
	}
	pool := x509NewPool(ca)
	return &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool}, nil
}

func x509NewPool(pem []byte) *x509.CertPool {
	p := x509.NewCertPool()
	p.AppendCertsFromPEM(pem)
	return p
}

// TestClusterRPCTLS runs three servers (serf + bootstrap_expect = 3) and a
// client agent with tls.rpc: raft, forwarding from a follower and the
// client's RPC all run inside mutual TLS (the servers refuse plaintext, so
// an election and a forwarded write prove it); killing the leader elects
// another over TLS and the job is still there.
func TestClusterRPCTLS(t *testing.T) {
	pki := t.TempDir()
	tlsPKI(t, pki)
	rpcOnly := func(base string) string {
		return strings.Replace(strings.Replace(tlsBlock(pki, base), "http = true", "http = false", 1),
			"verify_https_client    = true", "verify_https_client    = false", 1)
	}
	servers := startSerfCluster(t, 3, rpcOnly("global-server"))
	leader := agreedLeader(t, servers, 60*time.Second)
	var follower *clusterServer
	var rpcAddrs []string
	for _, s := range servers {
		rpcAddrs = append(rpcAddrs, fmt.Sprintf("%q", s.rpc))
		if s != leader {
			follower = s
		}
	}
	body := fmt.Sprintf("client {\n  enabled = true\n  servers = [%s]\n}\nplugin \"raw_exec\" {\n  config {\n    enabled = true\n  }\n}\n%s",
		strings.Join(rpcAddrs, ", "), rpcOnly("global-client"))
	startConfiguredAgent(t, filepath.Join(agentsDir(t), "tlscluster-client"), body)

	job := writeFile(t, "tlscluster.nomad.hcl", `job "tlscluster" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["300"]
      }
    }
  }
}
`)
	// Through a follower: the write is forwarded to the leader over TLS.
	if r := nomadishAt(t, follower.http, "job", "run", "-detach", job); r.code != 0 {
		t.Fatalf("job run through follower %s: %v", follower.name, r)
	}
	var allocID string
	eventually(t, 60*time.Second, "tlscluster running on the TLS client", func() (bool, string) {
		var allocs []struct{ ID, ClientStatus, NodeName string }
		if err := getJSON(follower.http+"/v1/job/tlscluster/allocations", &allocs); err != nil {
			return false, err.Error()
		}
		if len(allocs) == 1 {
			allocID = allocs[0].ID
		}
		return len(allocs) == 1 && allocs[0].ClientStatus == "running", fmt.Sprintf("%+v", allocs)
	})
	// Every server reaches the client's allocation: the one holding the
	// client's node tunnel directly, the others through it (RPCNodeDial
	// over TLS).
	checkFSThrough(t, servers, allocID)

	leader.kill()
	var rest []*clusterServer
	for _, s := range servers {
		if s != leader {
			rest = append(rest, s)
		}
	}
	start := time.Now()
	newLeader := agreedLeader(t, rest, 30*time.Second)
	t.Logf("new leader %s over TLS raft after %v", newLeader.name, time.Since(start).Round(time.Millisecond))
	if !newLeader.hasJob("tlscluster") {
		t.Fatal("the job is gone after the failover")
	}
	// The client's tunnel moves off the killed server if it was there.
	checkFSThrough(t, rest, allocID)
	for _, s := range servers {
		if logHas(s.proc, "refusing plaintext RPC connection") || logHas(s.proc, "TLS handshake failed") {
			t.Errorf("%s refused a connection: something dialed without (valid) TLS", s.name)
		}
	}
	if r := nomadishAt(t, rest[0].http, "job", "stop", "tlscluster"); r.code != 0 {
		t.Logf("job stop: %v", r)
	}
}

// checkFSThrough waits until `GET /v1/client/fs/ls/:alloc` answers the
// allocation's directory through each of servers (forwarded over the
// client's node tunnel).
func checkFSThrough(t *testing.T, servers []*clusterServer, allocID string) {
	t.Helper()
	for _, s := range servers {
		eventually(t, 30*time.Second, "alloc fs through "+s.name, func() (bool, string) {
			var files []struct{ Name string }
			err := getJSON(s.http+"/v1/client/fs/ls/"+allocID+"?path=/", &files)
			for _, f := range files {
				if f.Name == "alloc" {
					return true, ""
				}
			}
			return false, fmt.Sprintf("%+v %v", files, err)
		})
	}
}
