package agent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/client/fingerprint/sysfstest"
	"github.com/nomadish/nomadish/structs"
)

// TestNodeTopologyFromSysfsRoot starts a dev agent whose client reads a
// fake 4 NUMA node x 4 core machine through sysfs_root, with cores 0-1
// reserved, and reads the topology back from GET /v1/node/{id}.
func TestNodeTopologyFromSysfsRoot(t *testing.T) {
	cfg := config.DevConfig()
	cfg.Name = "numa"
	cfg.Ports = config.Ports{}
	cfg.Client.SysfsRoot = sysfstest.Temp(t, sysfstest.Machine{Sockets: 2, NodesPerSocket: 2, CoresPerNode: 4, BaseKHz: 2000000})
	cfg.Client.ReservedCores = "0-1"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "agent", Level: hclog.Info, Output: t.Output()})
	a, err := New(cfg, logger, WithPluginExecutable(nomadishBinary(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Shutdown() })
	base := "http://" + a.HTTPAddr()
	var node structs.Node
	waitFor(t, 10*time.Second, "the node to register", func() error {
		var nodes []*structs.NodeListStub
		if err := numaGetJSON(base+"/v1/nodes", &nodes); err != nil || len(nodes) != 1 {
			return fmt.Errorf("nodes %v: %v", nodes, err)
		}
		return numaGetJSON(base+"/v1/node/"+nodes[0].ID, &node)
	})
	r := node.NodeResources
	if r == nil || r.Processors.Topology == nil {
		t.Fatalf("node resources without topology: %+v", r)
	}
	topo := r.Processors.Topology
	if len(topo.Cores) != 16 || !reflect.DeepEqual(topo.Nodes, []uint8{0, 1, 2, 3}) || topo.Distances[0][2] != 21 {
		t.Fatalf("topology %+v", topo)
	}
	if r.Cpu.TotalCpuCores != 14 || len(r.Cpu.ReservableCpuCores) != 14 || r.Cpu.CpuShares != 14*2000 {
		t.Errorf("cpu %+v", r.Cpu)
	}
	if !topo.Cores[0].Disable || topo.Cores[2].Disable || !reflect.DeepEqual(node.ReservedResources.Cpu.ReservedCpuCores, []uint16{0, 1}) {
		t.Errorf("reserved cores: core0 %+v core2 %+v reserved %+v", topo.Cores[0], topo.Cores[2], node.ReservedResources.Cpu)
	}
}

func numaGetJSON(url string, out any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
