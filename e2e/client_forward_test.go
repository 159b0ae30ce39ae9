package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/nomadish/nomadish/internal/testbin"
)

// fwdJob is a raw_exec service pinned to the node named node: it prints
// "started" (and "to-err" on stderr) on each start and "got-usr1" on
// SIGUSR1.
func fwdJob(id, node string) string {
	return fmt.Sprintf(`job %q {
  type = "service"
  constraint {
    attribute = "${node.unique.name}"
    value     = %q
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      kill_timeout = "1s"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo started; echo to-err >&2; trap 'echo got-usr1' USR1; while true; do sleep 0.1; done"]
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}
`, id, node)
}

// fwdCluster is one server-only agent and two client agents, a and b.
type fwdCluster struct {
	srv        *serverProc
	a, b       *agentProc
	httpAddr   string // the server's HTTP host:port
	rpcAddr    string
	bName      string
	serverConf string
}

func startFwdCluster(t *testing.T) *fwdCluster {
	t.Helper()
	base := agentsDir(t)
	ports, err := testbin.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	c := &fwdCluster{httpAddr: fmt.Sprintf("127.0.0.1:%d", ports[0]), rpcAddr: fmt.Sprintf("127.0.0.1:%d", ports[1])}
	dir := filepath.Join(base, "server")
	c.serverConf = serverAgentConfig(dir, "fwd-srv", "127.0.0.1", ports[0], ports[1], ports[2], 1, nil)
	if c.srv, err = startServerAgent(dir, "fwd-srv", c.httpAddr, c.rpcAddr, c.serverConf); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for name, a := range map[string]*agentProc{"client a": c.a, "client b": c.b} {
			if a != nil {
				a.stop()
				if t.Failed() {
					t.Logf("%s log (tail):\n%s", name, a.logTail())
				}
			}
		}
		if !c.srv.exited() {
			c.srv.stop()
		}
		if t.Failed() {
			t.Logf("server log (tail):\n%s", c.srv.logTail())
		}
	})
	waitLeader(t, c.srv.addr, 30*time.Second)
	c.bName = uniqueID("fwd-b")
	if c.a, err = startAgent(filepath.Join(base, uniqueID("fwd-a")), false, c.rpcAddr); err != nil {
		t.Fatal(err)
	}
	// Client b advertises an HTTP address nothing listens on, as a client
	// behind NAT: only its tunnel reaches it (and the official client,
	// which tries the node's address first, falls back to the server).
	unreachable, err := testbin.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	if c.b, err = startAgent(filepath.Join(base, c.bName), false, c.rpcAddr,
		fmt.Sprintf("advertise {\n  http = \"127.0.0.1:%d\"\n}", unreachable[0])); err != nil {
		t.Fatal(err)
	}
	if err := c.srv.waitReady(2, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestClientRequestsForwarded runs a raw_exec job pinned to client b of a
// cluster of one server-only agent and two client agents, then drives the
// client endpoints (logs, follow, exec, fs, stats, signal, restart)
// through the server's HTTP API and through client a's: each request
// reaches client b over the node tunnel it keeps to the server. The
// official Go client's AllocFS and Exec work through the server. After a
// server restart, client b's tunnel comes back.
func TestClientRequestsForwarded(t *testing.T) {
	c := startFwdCluster(t)
	id := uniqueID("e2e-fwd")
	path := writeFile(t, id+".nomad.hcl", fwdJob(id, c.bName))
	if r := nomadishAt(t, c.srv.addr, "job", "run", "-detach", path); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	var allocID string
	eventually(t, 30*time.Second, "the alloc running on client b", func() (bool, string) {
		allocs := clusterAllocs(t, c.srv.addr, id)
		if len(allocs) == 1 && allocs[0].ClientStatus == "running" {
			allocID = allocs[0].ID
			return true, ""
		}
		return false, fmt.Sprintf("%+v", allocs)
	})
	for _, via := range []struct{ name, addr string }{{"server", c.srv.addr}, {"client a", c.a.addr}} {
		t.Run(via.name, func(t *testing.T) { checkForwarded(t, via.addr, allocID) })
	}
	checkOfficialClientForwarded(t, c.srv.addr, allocID)

	// Unknown allocations stay 404; a path escaping the alloc dir is
	// refused by client b (400), through the server.
	if code, body := httpGet(t, c.srv.addr+"/v1/client/fs/ls/00000000-0000-0000-0000-000000000000"); code != 404 {
		t.Errorf("ls of an unknown alloc: %d %q", code, body)
	}
	if code, body := httpGet(t, c.srv.addr+"/v1/client/fs/cat/"+allocID+"?path=../../../etc/passwd"); code != 400 {
		t.Errorf("cat of ../../../etc/passwd: %d %q", code, body)
	}

	// The server restarts on its data dir: client b's tunnel comes back.
	c.srv.stop()
	if err := c.srv.start(c.httpAddr, c.rpcAddr); err != nil {
		t.Fatal(err)
	}
	waitLeader(t, c.srv.addr, 30*time.Second)
	eventually(t, 40*time.Second, "logs through the restarted server", func() (bool, string) {
		code, body := httpGet(t, c.srv.addr+"/v1/client/fs/logs/"+allocID+"?task=t&type=stdout&plain=true")
		return code == 200 && strings.Contains(body, "started"), fmt.Sprintf("%d %q", code, body)
	})
}

// checkForwarded drives every client endpoint for allocID through the
// agent at addr (which does not run it).
func checkForwarded(t *testing.T, addr, allocID string) {
	short := allocID[:8]
	if r := nomadishAt(t, addr, "alloc", "logs", short); r.code != 0 || !strings.Contains(r.out, "started") {
		t.Fatalf("alloc logs: %v", r)
	}
	if r := nomadishAt(t, addr, "alloc", "logs", "-stderr", short, "t"); r.code != 0 || !strings.Contains(r.out, "to-err") {
		t.Fatalf("alloc logs -stderr: %v", r)
	}
	if r := runNomadish(t, addr, strings.NewReader("ping-through\n"), "alloc", "exec", "-i", "-t=false", short, "cat"); r.code != 0 || r.out != "ping-through\n" {
		t.Fatalf("alloc exec round trip: %v", r)
	}
	if r := nomadishAt(t, addr, "alloc", "fs", short); r.code != 0 || !strings.Contains(r.out, "alloc/") || !strings.Contains(r.out, "t/") {
		t.Fatalf("alloc fs: %v", r)
	}
	if r := nomadishAt(t, addr, "alloc", "fs", short, "alloc/logs/t.stdout.0"); r.code != 0 || !strings.Contains(r.out, "started") {
		t.Fatalf("alloc fs (cat): %v", r)
	}
	if r := nomadishAt(t, addr, "alloc", "fs", "-stat", short, "alloc/logs"); r.code != 0 || !strings.Contains(r.out, "logs/") {
		t.Fatalf("alloc fs -stat: %v", r)
	}
	var stats struct{ Tasks map[string]any }
	if err := getJSON(addr+"/v1/client/allocation/"+allocID+"/stats", &stats); err != nil || stats.Tasks["t"] == nil {
		t.Fatalf("stats: %+v %v", stats, err)
	}

	// Follow stdout while a signal is sent: the trap's line arrives on the
	// open stream.
	lines := followLogs(t, addr, allocID)
	waitLine(t, lines, "started")
	if r := nomadishAt(t, addr, "alloc", "signal", "-s", "SIGUSR1", short); r.code != 0 {
		t.Fatalf("alloc signal: %v", r)
	}
	waitLine(t, lines, "got-usr1")

	// Restart in place: the task starts again (one more "started").
	before := strings.Count(logsOf(t, addr, allocID), "started")
	if r := nomadishAt(t, addr, "alloc", "restart", short); r.code != 0 {
		t.Fatalf("alloc restart: %v", r)
	}
	eventually(t, 20*time.Second, "the restarted task's output", func() (bool, string) {
		out := logsOf(t, addr, allocID)
		return strings.Count(out, "started") > before, out
	})
}

// followLogs opens a follow stream of allocID's stdout at addr and returns
// its lines; the stream ends with the test.
func followLogs(t *testing.T, addr, allocID string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", addr+"/v1/client/fs/logs/"+allocID+"?task=t&type=stdout&plain=true&follow=true", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("follow: %d %s", resp.StatusCode, b)
	}
	lines := make(chan string, 100)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return lines
}

// waitLine waits (20 s at most) for line on lines.
func waitLine(t *testing.T, lines <-chan string, line string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("follow stream ended before %q", line)
			}
			if l == line {
				return
			}
		case <-deadline:
			t.Fatalf("no %q on the follow stream", line)
		}
	}
}

func logsOf(t *testing.T, addr, allocID string) string {
	t.Helper()
	_, body := httpGet(t, addr+"/v1/client/fs/logs/"+allocID+"?task=t&type=stdout&plain=true")
	return body
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// checkOfficialClientForwarded uses github.com/hashicorp/nomad/api through
// the server: AllocFS List, Stat and Cat, and Allocations().Exec.
func checkOfficialClientForwarded(t *testing.T, addr, allocID string) {
	t.Helper()
	c, err := api.NewClient(&api.Config{Address: addr})
	if err != nil {
		t.Fatal(err)
	}
	alloc, _, err := c.Allocations().Info(allocID, nil)
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := c.AllocFS().List(alloc, "/alloc", nil)
	if err != nil {
		t.Fatalf("AllocFS().List: %v", err)
	}
	names := map[string]bool{}
	for _, f := range files {
		names[f.Name] = f.IsDir
	}
	if !names["logs"] {
		t.Fatalf("AllocFS().List(/alloc) = %+v, want the logs dir", files)
	}
	st, _, err := c.AllocFS().Stat(alloc, "alloc/logs/t.stdout.0", nil)
	if err != nil || st.IsDir || st.Size == 0 || st.ContentType == "" {
		t.Fatalf("AllocFS().Stat: %+v %v", st, err)
	}
	rc, err := c.AllocFS().Cat(alloc, "alloc/logs/t.stdout.0", nil)
	if err != nil {
		t.Fatalf("AllocFS().Cat: %v", err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if !strings.Contains(string(b), "started") {
		t.Fatalf("AllocFS().Cat = %q", b)
	}
	var out, errOut strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code, err := c.Allocations().Exec(ctx, alloc, "t", false, []string{"sh", "-c", "echo via-api; exit 3"},
		strings.NewReader(""), &out, &errOut, nil, nil)
	if err != nil || code != 3 || !strings.Contains(out.String(), "via-api") {
		t.Fatalf("Allocations().Exec: code %d err %v out %q err %q", code, err, out.String(), errOut.String())
	}
}
