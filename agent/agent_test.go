package agent

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/version"
)

func testLogger(t *testing.T, name string) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: name, Level: hclog.Debug, Output: t.Output()})
}

func TestNewRejectsBadConfig(t *testing.T) {
	if _, err := New(nil, nil); err == nil {
		t.Fatal("nil config accepted")
	}
	cfg := config.DefaultConfig() // neither server nor client
	cfg.Ports = config.Ports{}
	_, err := New(cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "server.enabled") {
		t.Fatalf("err = %v, want one naming server.enabled", err)
	}
}

func TestNewFailsOnBusyHTTPPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg := config.DevConfig()
	cfg.Ports = config.Ports{}
	cfg.Ports.HTTP = ln.Addr().(*net.TCPAddr).Port
	_, err = New(cfg, testLogger(t, "agent"))
	if err == nil || !strings.Contains(err.Error(), "listening for HTTP") {
		t.Fatalf("err = %v, want a listen error", err)
	}
}

func TestNewFailsWhenServerFails(t *testing.T) {
	cfg := config.DefaultConfig()
	cfg.BindAddr = "127.0.0.1"
	cfg.Ports = config.Ports{}
	cfg.Server.Enabled = true
	cfg.Client.Enabled = true // started concurrently, then stopped
	// The server's raft directory cannot be created under a regular file.
	cfg.DataDir = filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(cfg.DataDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := New(cfg, testLogger(t, "agent"), WithPluginExecutable(nomadishBinary(t)))
	if err == nil || !strings.Contains(err.Error(), "starting server") {
		t.Fatalf("err = %v, want a server start error", err)
	}
}

func TestServerAndClientAgentsOverTCP(t *testing.T) {
	bin := nomadishBinary(t)
	scfg := config.DefaultConfig()
	scfg.Name, scfg.BindAddr, scfg.Ports, scfg.DataDir = "srv", "127.0.0.1", config.Ports{}, t.TempDir()
	scfg.Server.Enabled, scfg.Server.BootstrapExpect = true, 1
	srv, err := New(scfg, testLogger(t, "srv"))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()

	ccfg := config.DefaultConfig()
	ccfg.Name, ccfg.BindAddr, ccfg.Ports, ccfg.DataDir = "cli", "127.0.0.1", config.Ports{}, t.TempDir()
	ccfg.Client.Enabled, ccfg.Client.Servers = true, []string{srv.RPCAddr()}
	ccfg.Client.StateDir, ccfg.Client.AllocDir = filepath.Join(t.TempDir(), "state"), filepath.Join(t.TempDir(), "allocs")
	ccfg.Plugins["raw_exec"] = &config.PluginConfig{Name: "raw_exec", Config: map[string]any{"enabled": true}}
	cli, err := New(ccfg, testLogger(t, "cli"), WithPluginExecutable(bin))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		start := time.Now()
		cli.Shutdown()
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("client agent shutdown took %v", d)
		}
	}()

	sc, _ := api.NewClient(&api.Config{Address: "http://" + srv.HTTPAddr()})
	cc, _ := api.NewClient(&api.Config{Address: "http://" + cli.HTTPAddr()})
	waitFor(t, 10*time.Second, "the client's node to be ready", func() error {
		nodes, _, err := cc.Nodes().List(nil) // through the client agent's rpcclient
		if err != nil || len(nodes) != 1 || nodes[0].Status != "ready" {
			return fmt.Errorf("nodes %v: %v", nodes, err)
		}
		return nil
	})

	job := api.NewBatchJob("tcp", "tcp", "global", 50)
	job.Datacenters = []string{"dc1"}
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(api.NewTask("hello", "raw_exec").
		SetConfig("command", "/bin/sh").SetConfig("args", []string{"-c", "echo over tcp"})))
	if _, _, err := sc.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	var allocID string
	waitFor(t, 20*time.Second, "the alloc to complete", func() error {
		allocs, _, err := cc.Jobs().Allocations("tcp", false, nil)
		if err != nil || len(allocs) != 1 || allocs[0].ClientStatus != "complete" {
			return fmt.Errorf("allocs %v: %v", allocs, err)
		}
		allocID = allocs[0].ID
		return nil
	})

	logsPath := "/v1/client/fs/logs/" + allocID + "?task=hello&type=stdout&plain=true"
	if code, body := get(t, "http://"+cli.HTTPAddr()+logsPath); code != 200 || body != "over tcp\n" {
		t.Fatalf("client agent logs: %d %q", code, body)
	}
	// The server agent runs no client: it forwards the request to the
	// node's client over the tunnel that client keeps (issue 11).
	waitFor(t, 10*time.Second, "the server agent to forward the logs", func() error {
		if code, body := get(t, "http://"+srv.HTTPAddr()+logsPath); code != 200 || body != "over tcp\n" {
			return fmt.Errorf("server agent logs: %d %q", code, body)
		}
		return nil
	})

	self, err := cc.Agent().Self()
	if err != nil || self.Member.Name != "" || self.Stats["client"]["node_id"] == "" {
		t.Fatalf("client agent self %+v: %v", self, err)
	}
	if v, _ := self.Config["Version"].(map[string]any); v["Version"] != version.Version {
		t.Errorf("self config Version = %v, want %s", self.Config["Version"], version.Version)
	}
	node, _, err := cc.Nodes().Info(self.Stats["client"]["node_id"], nil)
	if err != nil || node.Attributes["nomad.version"] != version.Version {
		t.Errorf("node nomad.version: %v", err)
	}
	for _, p := range []string{filepath.Join(ccfg.Client.StateDir, "state.db"), filepath.Join(ccfg.Client.AllocDir, allocID)} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("client.state_dir/alloc_dir not used: %v", err)
		}
	}
	if ports, ok := self.Config["Ports"].(map[string]any); !ok || ports["HTTP"] != float64(mustPort(t, cli.HTTPAddr())) {
		t.Fatalf("self ports %v, want the bound HTTP port", self.Config["Ports"])
	}
	health, err := cc.Agent().Health()
	if err != nil || health.Client == nil || !health.Client.Ok || health.Server != nil {
		t.Fatalf("client agent health %+v: %v", health, err)
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func mustPort(t *testing.T, addr string) int {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(p)
	return n
}
