package pluginmgr_test

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/pluginmgr"
	"github.com/nomadish/nomadish/drivers/base"
)

// netPlugin is a plugin whose driver creates group namespaces (as docker's).
type netPlugin struct {
	*clienttest.FakePlugin
	created map[string]bool
}

func (p *netPlugin) Capabilities() (*base.Capabilities, error) {
	return &base.Capabilities{MustInitiateNetwork: true}, nil
}

func (p *netPlugin) CreateNetwork(allocID string, _ *base.NetworkCreateRequest) (*base.NetworkIsolation, bool, error) {
	fresh := !p.created[allocID]
	p.created[allocID] = true
	return &base.NetworkIsolation{Path: "/proc/1/ns/net", Labels: map[string]string{"id": allocID}}, fresh, nil
}

func (p *netPlugin) DestroyNetwork(allocID string, _ *base.NetworkIsolation) error {
	delete(p.created, allocID)
	return nil
}

// The manager hands out a NetworkManager only for plugins whose
// capabilities say they create namespaces, and forwards its calls.
func TestNetworkManagerByCapability(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		np := &netPlugin{created: map[string]bool{}}
		launch := func(name string) (pluginmgr.Plugin, func(), error) {
			p := clienttest.NewFakePlugin(name, nil)
			if name == "docker" {
				np.FakePlugin = p
				return np, p.Kill, nil
			}
			return p, p.Kill, nil
		}
		m := pluginmgr.New(pluginmgr.Config{Launch: launch, Drivers: map[string]map[string]any{"raw_exec": nil, "docker": nil}})
		m.Start()
		defer m.Shutdown()
		if _, ok, err := m.NetworkManager("raw_exec"); ok || err != nil {
			t.Fatalf("raw_exec: ok %v, err %v; want not a network manager", ok, err)
		}
		if _, _, err := m.NetworkManager("nope"); !errors.Is(err, pluginmgr.ErrUnknownDriver) {
			t.Fatalf("unknown driver: %v", err)
		}
		nm, ok, err := m.NetworkManager("docker")
		if !ok || err != nil {
			t.Fatalf("docker: ok %v, err %v", ok, err)
		}
		spec, created, err := nm.CreateNetwork("a1", &base.NetworkCreateRequest{})
		if err != nil || !created || spec.Labels["id"] != "a1" {
			t.Fatalf("create: %+v %v %v", spec, created, err)
		}
		if _, created, _ := nm.CreateNetwork("a1", nil); created {
			t.Fatal("second create said created")
		}
		if err := nm.DestroyNetwork("a1", spec); err != nil || np.created["a1"] {
			t.Fatalf("destroy: %v, left %v", err, np.created)
		}
	})
}
