package client_test

import (
	"errors"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/nomadish/nomadish/client"
	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/network"
	"github.com/nomadish/nomadish/drivers/catalog"
)

func metaClient(t *testing.T, srv *clienttest.FakeServer, l *fakeLauncher, dir string) *client.Client {
	t.Helper()
	c, err := client.New(&client.Config{DataDir: dir, NodeName: "n1", Datacenter: "dc1", Version: "0.1.0",
		Meta:    map[string]string{"rack": "r1", "zone": "z1"},
		Drivers: catalog.Builtin, PluginConfig: map[string]map[string]any{"mock_driver": {}, "raw_exec": {"enabled": false}},
		Launcher: l.launch, Network: network.Config{CNIPath: filepath.Join(dir, "no-cni")}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptrTo(s string) *string { return &s }

// Dynamic node metadata goes over the static one (a null unsets, a static
// key too), reaches the servers with a re-registration and survives a
// client restart.
func TestApplyNodeMetaReRegistersAndSurvivesRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		l := &fakeLauncher{drv: clienttest.NewFakeDriver()}
		dir := t.TempDir()
		c := metaClient(t, srv, l, dir)
		synctest.Wait()
		resp, err := c.ApplyNodeMeta(map[string]*string{"gpu": ptrTo("a100"), "zone": nil})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"rack": "r1", "gpu": "a100"}
		if !equalMaps(resp.Meta, want) || resp.Static["zone"] != "z1" || resp.Dynamic["zone"] != nil || *resp.Dynamic["gpu"] != "a100" {
			t.Fatalf("response %+v", resp)
		}
		synctest.Wait()
		if node := srv.Node(c.NodeID()); node == nil || !equalMaps(node.Meta, want) {
			t.Fatalf("the server's node meta: %+v", node)
		}
		if _, err := c.ApplyNodeMeta(map[string]*string{"": ptrTo("x")}); !errors.Is(err, client.ErrBadNodeMeta) {
			t.Fatalf("empty key: %v", err)
		}
		if err := c.Shutdown(); err != nil {
			t.Fatal(err)
		}

		c2 := metaClient(t, srv, l, dir)
		defer c2.Shutdown()
		got, err := c2.NodeMeta()
		if err != nil || !equalMaps(got.Meta, want) || len(got.Dynamic) != 2 {
			t.Fatalf("after restart: %+v %v", got, err)
		}
		synctest.Wait()
		if node := srv.Node(c2.NodeID()); !equalMaps(node.Meta, want) {
			t.Fatalf("registered after restart with %v", node.Meta)
		}
	})
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}
