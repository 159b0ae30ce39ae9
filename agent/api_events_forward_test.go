package agent

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/agent/config"
)

// TestClientOnlyAgentForwardsTheEventStream: a client-only agent's
// GET /v1/event/stream is answered by its server, over the RPC port.
func TestClientOnlyAgentForwardsTheEventStream(t *testing.T) {
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
	ccfg.Client.StateDir, ccfg.Client.AllocDir = t.TempDir(), t.TempDir()
	cli, err := New(ccfg, testLogger(t, "cli"), WithPluginExecutable(nomadishBinary(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Shutdown()

	cc, _ := api.NewClient(&api.Config{Address: "http://" + cli.HTTPAddr()})
	var nodeID string
	waitFor(t, 10*time.Second, "the client's node to be ready", func() error {
		nodes, _, err := cc.Nodes().List(nil)
		if err != nil || len(nodes) != 1 || nodes[0].Status != "ready" {
			return fmt.Errorf("nodes %v: %v", nodes, err)
		}
		nodeID = nodes[0].ID
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stream, err := cc.EventStream().Stream(ctx, map[api.Topic][]string{api.TopicNode: {nodeID}}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	evs := nextEvents(t, ctx, stream)
	n, err := evs.Events[0].Node()
	if err != nil || n == nil || n.ID != nodeID || evs.Events[0].Type != "NodeRegistration" {
		t.Fatalf("first event %+v: %v %v", evs.Events[0], n, err)
	}
	if _, err := cc.EventStream().Stream(ctx, map[api.Topic][]string{"Job": {"a:b"}}, 0, nil); err == nil {
		t.Fatal("a bad topic through the client agent was accepted")
	}
}
