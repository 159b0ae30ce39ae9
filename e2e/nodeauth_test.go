package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A server enforcing client_introduction = "strict": a client without the
// token is refused (403, logged by the client) and never becomes a node; a
// client with it registers and runs a job; GET /v1/node/:id never shows a
// SecretID; a snapshot gzip bomb is refused with 400 and the agent still
// answers.
func TestNodeIntroductionAndSnapshotBomb(t *testing.T) {
	const token = "e2e-intro-token-0123456789"
	base := agentsDir(t)
	intro := "server {\n  client_introduction {\n    enforcement = \"strict\"\n    tokens = [\"" + token + "\"]\n  }\n}\n"
	srv, err := startAgent(filepath.Join(base, "server"), true, "", intro, "client {\n  intro_token = \""+token+"\"\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	if err := srv.waitReady(1, 30*time.Second); err != nil {
		t.Fatalf("%v\n%s", err, srv.logTail())
	}
	stranger, err := startAgent(filepath.Join(base, "stranger"), false, srv.rpcAddr, `datacenter = "introdc"`)
	if err != nil {
		t.Fatal(err)
	}
	defer stranger.stop()
	eventually(t, 30*time.Second, "the stranger client refused", func() (bool, string) {
		b, _ := os.ReadFile(stranger.logPath)
		return strings.Contains(string(b), "new node has no valid client introduction token"), "no refusal in the client log"
	})
	member, err := startAgent(filepath.Join(base, "member"), false, srv.rpcAddr, `datacenter = "introdc"`,
		"client {\n  intro_token = \""+token+"\"\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	defer member.stop()
	if err := srv.waitReady(2, 30*time.Second); err != nil {
		t.Fatalf("%v\n%s", err, member.logTail())
	}
	var nodes []struct{ ID, Name, Datacenter string }
	if err := getJSON(srv.addr+"/v1/nodes", &nodes); err != nil || len(nodes) != 2 {
		t.Fatalf("nodes: %v %+v", err, nodes)
	}
	for _, n := range nodes {
		if n.Name == "stranger" {
			t.Fatalf("the client without a token became a node: %+v", n)
		}
		var full map[string]any
		if err := getJSON(srv.addr+"/v1/node/"+n.ID, &full); err != nil || full["SecretID"] != "" {
			t.Fatalf("node %s: SecretID %v (%v)", n.Name, full["SecretID"], err)
		}
	}
	runOnIntroduced(t, srv.addr)
	restoreBomb(t, srv.addr)
}

// runOnIntroduced runs a raw_exec batch job in the introduced client's
// datacenter and waits until its allocation completes.
func runOnIntroduced(t *testing.T, addr string) {
	t.Helper()
	job := `{"Job":{"ID":"intro","Name":"intro","Type":"batch","Datacenters":["introdc"],"TaskGroups":[{"Name":"g","Count":1,` +
		`"Tasks":[{"Name":"t","Driver":"raw_exec","Config":{"command":"/bin/true"}}]}]}}`
	resp, err := http.Post(addr+"/v1/jobs", "application/json", strings.NewReader(job))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("register: %v %v", err, resp)
	}
	resp.Body.Close()
	eventually(t, 60*time.Second, "the job's alloc completes on the introduced client", func() (bool, string) {
		var allocs []struct{ ClientStatus string }
		if err := getJSON(addr+"/v1/job/intro/allocations", &allocs); err != nil || len(allocs) == 0 {
			return false, "no allocation"
		}
		return allocs[0].ClientStatus == "complete", allocs[0].ClientStatus
	})
}

// restoreBomb PUTs a gzip bomb (a state.bin declaring 1 TiB, 32 MiB of
// zeros, about 32 KiB compressed) as a snapshot: 400, and the agent still
// answers with its leader.
func restoreBomb(t *testing.T, addr string) {
	t.Helper()
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: "state.bin", Mode: 0o600, Size: 1 << 40, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for range 32 {
		_, _ = tw.Write(zeros)
	}
	_ = gz.Close()
	req, _ := http.NewRequest(http.MethodPut, addr+"/v1/operator/snapshot", &buf)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(body), "restore limit") {
		t.Fatalf("bomb restore: %d %s", resp.StatusCode, body)
	}
	var leader string
	if err := getJSON(addr+"/v1/status/leader", &leader); err != nil || leader == "" {
		t.Fatalf("agent after the bomb: %q %v", leader, err)
	}
	var self map[string]json.RawMessage
	if err := getJSON(addr+"/v1/agent/self", &self); err != nil {
		t.Fatalf("agent/self after the bomb: %v", err)
	}
}
