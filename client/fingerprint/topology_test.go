package fingerprint

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/client/fingerprint/sysfstest"
	"github.com/nomadish/nomadish/structs"
)

// fingerprintFake fingerprints a fake machine: m's sysfs tree plus the
// given /proc files under one root.
func fingerprintFake(t *testing.T, m sysfstest.Machine, proc map[string]string, reserved, reservable []uint16) (*Result, error) {
	t.Helper()
	sys := sysfstest.Temp(t, m)
	root := filepath.Dir(sys)
	for p, content := range proc {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Fingerprint(Config{Root: root, SysfsRoot: sys, DataDir: root, ReservedCores: reserved, ReservableCores: reservable,
		InterfaceAddrs: func() ([]net.Addr, error) { return nil, nil }})
}

func mustFake(t *testing.T, m sysfstest.Machine, proc map[string]string, reserved, reservable []uint16) *Result {
	t.Helper()
	r, err := fingerprintFake(t, m, proc, reserved, reservable)
	if err != nil {
		t.Fatal(err)
	}
	if r.Resources.Processors.Topology == nil {
		t.Fatal("no topology")
	}
	return r
}

func ids(lo, hi int) []uint16 {
	var out []uint16
	for i := lo; i <= hi; i++ {
		out = append(out, uint16(i))
	}
	return out
}

func checkCore(t *testing.T, topo *structs.Topology, id uint16, socket, node uint8, siblings []uint16, disabled bool) {
	t.Helper()
	for _, c := range topo.Cores {
		if c.ID != id {
			continue
		}
		if c.SocketID != socket || c.NodeID != node || !reflect.DeepEqual(c.Siblings, siblings) || c.Disable != disabled {
			t.Errorf("core %d = %+v, want socket %d node %d siblings %v disable %v", id, c, socket, node, siblings, disabled)
		}
		return
	}
	t.Errorf("core %d missing", id)
}

func TestTopologyTwoSocketsSMT(t *testing.T) {
	m := sysfstest.Machine{Sockets: 2, CoresPerNode: 8, ThreadsPerCore: 2, BaseKHz: 2100000, MaxKHz: 3500000,
		NodeMemMiB: []int64{32768, 32768}}
	r := mustFake(t, m, nil, nil, nil)
	topo := r.Resources.Processors.Topology
	if !reflect.DeepEqual(topo.Nodes, []uint8{0, 1}) || len(topo.Cores) != 32 {
		t.Fatalf("nodes %v, %d cores", topo.Nodes, len(topo.Cores))
	}
	if !reflect.DeepEqual(topo.Distances, [][]uint16{{10, 21}, {21, 10}}) || !reflect.DeepEqual(topo.NodeMemoryMB, []int64{32768, 32768}) {
		t.Errorf("distances %v memory %v", topo.Distances, topo.NodeMemoryMB)
	}
	checkCore(t, topo, 0, 0, 0, []uint16{0, 16}, false)
	checkCore(t, topo, 16, 0, 0, []uint16{0, 16}, false)
	checkCore(t, topo, 8, 1, 1, []uint16{8, 24}, false)
	checkCore(t, topo, 31, 1, 1, []uint16{15, 31}, false)
	for _, c := range topo.Cores {
		if c.BaseSpeed != 2100 || c.MaxSpeed != 3500 || c.GuessSpeed {
			t.Fatalf("core %d speeds %d/%d guess %v", c.ID, c.BaseSpeed, c.MaxSpeed, c.GuessSpeed)
		}
	}
	cpu := r.Resources.Cpu
	if cpu.CpuShares != 32*2100 || cpu.TotalCpuCores != 32 || !reflect.DeepEqual(cpu.ReservableCpuCores, ids(0, 31)) || len(r.ReservedCores) != 0 {
		t.Errorf("cpu = %+v reserved %v", cpu, r.ReservedCores)
	}
	want := map[string]string{"numa.node.count": "2", "numa.node0.cores": "0-7,16-23", "numa.node1.cores": "8-15,24-31",
		"cpu.numcores": "32", "cpu.totalcompute": "67200", "cpu.usablecompute": "67200"}
	for k, v := range want {
		if r.Attributes[k] != v {
			t.Errorf("%s = %q, want %q", k, r.Attributes[k], v)
		}
	}
}

func TestTopologyReservedAndReservableCores(t *testing.T) {
	m := sysfstest.Machine{Sockets: 2, CoresPerNode: 8, ThreadsPerCore: 2, BaseKHz: 2000000}
	// reserved 0-1; reservable 0-15 leaves out every second SMT thread.
	r := mustFake(t, m, nil, []uint16{0, 1}, ids(0, 15))
	topo := r.Resources.Processors.Topology
	checkCore(t, topo, 0, 0, 0, []uint16{0, 16}, true)
	checkCore(t, topo, 1, 0, 0, []uint16{1, 17}, true)
	checkCore(t, topo, 2, 0, 0, []uint16{2, 18}, false)
	checkCore(t, topo, 20, 0, 0, []uint16{4, 20}, true)
	cpu := r.Resources.Cpu
	if !reflect.DeepEqual(cpu.ReservableCpuCores, ids(2, 15)) || cpu.TotalCpuCores != 14 || cpu.CpuShares != 14*2000 {
		t.Errorf("cpu = %+v", cpu)
	}
	if want := append([]uint16{0, 1}, ids(16, 31)...); !reflect.DeepEqual(r.ReservedCores, want) {
		t.Errorf("reserved = %v, want %v", r.ReservedCores, want)
	}
	if r.Attributes["cpu.numcores"] != "32" || r.Attributes["cpu.usablecompute"] != "28000" || r.Attributes["cpu.reservablecores"] != "14" {
		t.Errorf("attrs %v", r.Attributes)
	}
	for _, tc := range []struct{ reserved, reservable []uint16 }{{[]uint16{32}, nil}, {nil, ids(30, 40)}} {
		_, err := fingerprintFake(t, m, nil, tc.reserved, tc.reservable)
		if !errors.Is(err, errCoreNotOnMachine) || !strings.Contains(err.Error(), "0-31") {
			t.Errorf("reserved %v reservable %v: err = %v", tc.reserved, tc.reservable, err)
		}
	}
}

func TestTopologyFourNodes(t *testing.T) {
	m := sysfstest.Machine{Sockets: 2, NodesPerSocket: 2, CoresPerNode: 4, CoreCPUsList: true}
	r := mustFake(t, m, map[string]string{"proc/cpuinfo": "processor : 0\nmodel name : X @ 2.40GHz\n"}, nil, nil)
	topo := r.Resources.Processors.Topology
	if !reflect.DeepEqual(topo.Nodes, []uint8{0, 1, 2, 3}) || len(topo.Cores) != 16 {
		t.Fatalf("nodes %v, %d cores", topo.Nodes, len(topo.Cores))
	}
	wantDist := [][]uint16{{10, 12, 21, 21}, {12, 10, 21, 21}, {21, 21, 10, 12}, {21, 21, 12, 10}}
	if !reflect.DeepEqual(topo.Distances, wantDist) {
		t.Errorf("distances %v", topo.Distances)
	}
	checkCore(t, topo, 5, 0, 1, []uint16{5}, false)
	checkCore(t, topo, 9, 1, 2, []uint16{9}, false)
	checkCore(t, topo, 15, 1, 3, []uint16{15}, false)
	for _, c := range topo.Cores { // no cpufreq: the model name's speed, marked a guess
		if c.BaseSpeed != 2400 || c.MaxSpeed != 2400 || !c.GuessSpeed {
			t.Fatalf("core %+v", c)
		}
	}
	if r.Attributes["numa.node3.cores"] != "12-15" || r.Resources.Cpu.CpuShares != 16*2400 || r.Resources.Cpu.TotalCpuCores != 16 {
		t.Errorf("attrs %v cpu %+v", r.Attributes, r.Resources.Cpu)
	}
}

func TestTopologyAsymmetricMemory(t *testing.T) {
	m := sysfstest.Machine{Sockets: 2, CoresPerNode: 4, NodeMemMiB: []int64{64 << 10, 16 << 10}}
	r := mustFake(t, m, map[string]string{"proc/meminfo": "MemTotal: 83886080 kB\n"}, nil, nil)
	topo := r.Resources.Processors.Topology
	if !reflect.DeepEqual(topo.NodeMemoryMB, []int64{65536, 16384}) {
		t.Errorf("node memory %v", topo.NodeMemoryMB)
	}
	if r.Resources.Memory.MemoryMB != 81920 {
		t.Errorf("memory %d", r.Resources.Memory.MemoryMB)
	}
}

func TestTopologyWithoutNodeDir(t *testing.T) {
	m := sysfstest.Machine{CoresPerNode: 4, NoNodeDir: true, MaxKHz: 3000000}
	r := mustFake(t, m, map[string]string{"proc/meminfo": "MemTotal: 8388608 kB\n"}, nil, nil)
	topo := r.Resources.Processors.Topology
	if !reflect.DeepEqual(topo.Nodes, []uint8{0}) || !reflect.DeepEqual(topo.Distances, [][]uint16{{10}}) ||
		!reflect.DeepEqual(topo.NodeMemoryMB, []int64{8192}) || len(topo.Cores) != 4 {
		t.Fatalf("topology %+v", topo)
	}
	for _, c := range topo.Cores { // base speed falls back to cpuinfo_max_freq
		if c.NodeID != 0 || c.BaseSpeed != 3000 || c.GuessSpeed {
			t.Errorf("core %+v", c)
		}
	}
	if r.Resources.Cpu.CpuShares != 12000 || r.Attributes["numa.node0.cores"] != "0-3" {
		t.Errorf("cpu %+v attrs %v", r.Resources.Cpu, r.Attributes)
	}
}

func TestTopologyOfflineCPUs(t *testing.T) {
	m := sysfstest.Machine{Sockets: 2, CoresPerNode: 4, BaseKHz: 1000000, Offline: []int{3, 6}}
	r := mustFake(t, m, nil, []uint16{0}, nil)
	topo := r.Resources.Processors.Topology
	if len(topo.Cores) != 8 {
		t.Fatalf("%d cores, want the 8 present ones", len(topo.Cores))
	}
	checkCore(t, topo, 3, 0, 0, nil, true) // in no cpulist: the first node
	checkCore(t, topo, 6, 0, 0, nil, true)
	checkCore(t, topo, 5, 1, 1, []uint16{5}, false)
	cpu := r.Resources.Cpu
	if !reflect.DeepEqual(cpu.ReservableCpuCores, []uint16{1, 2, 4, 5, 7}) || cpu.TotalCpuCores != 5 || cpu.CpuShares != 5000 {
		t.Errorf("cpu %+v", cpu)
	}
	if !reflect.DeepEqual(r.ReservedCores, []uint16{0}) || r.Attributes["cpu.numcores"] != "6" || r.Attributes["numa.node1.cores"] != "4-5,7" {
		t.Errorf("reserved %v attrs %v", r.ReservedCores, r.Attributes)
	}
}

// TestTopologyRealMachine checks this machine's topology against what the
// Go runtime sees (the test assumes no CPU affinity mask narrower than the
// online CPUs).
func TestTopologyRealMachine(t *testing.T) {
	r, err := Fingerprint(Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	topo := r.Resources.Processors.Topology
	if topo == nil {
		t.Fatal("no topology")
	}
	wantNodes := max(len(numaNodeDirs("/sys")), 1)
	if len(topo.Nodes) != wantNodes || len(topo.Distances) != wantNodes || len(topo.NodeMemoryMB) != wantNodes {
		t.Errorf("topology %+v, want %d nodes", topo, wantNodes)
	}
	if int(r.Resources.Cpu.TotalCpuCores) != runtime.NumCPU() || len(r.Resources.Cpu.ReservableCpuCores) != runtime.NumCPU() {
		t.Errorf("cpu %+v, runtime.NumCPU() = %d", r.Resources.Cpu, runtime.NumCPU())
	}
	for _, mb := range topo.NodeMemoryMB {
		if mb <= 0 {
			t.Errorf("node memory %v", topo.NodeMemoryMB)
		}
	}
	t.Logf("nodes %v distances %v memory %v cores %+v", topo.Nodes, topo.Distances, topo.NodeMemoryMB, topo.Cores)
}

func TestParseCPUSet(t *testing.T) {
	good := map[string][]uint16{"": nil, "3": {3}, "0-3": {0, 1, 2, 3}, " 8-9, 0,1 ,1": {0, 1, 8, 9}, "65535": {65535}}
	for in, want := range good {
		got, err := ParseCPUSet(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseCPUSet(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0-", "a", "3-1", "-1", "1,,2", "65536", "0-1a"} {
		if got, err := ParseCPUSet(in); err == nil {
			t.Errorf("ParseCPUSet(%q) = %v, want an error", in, got)
		}
	}
	for _, s := range []string{"0-3,8,10-11", "5", ""} {
		set, _ := ParseCPUSet(s)
		if got := FormatCPUSet(set); got != s {
			t.Errorf("FormatCPUSet(ParseCPUSet(%q)) = %q", s, got)
		}
	}
}
