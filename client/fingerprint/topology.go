package fingerprint

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// errCoreNotOnMachine is wrapped by Fingerprint when the reserved or
// reservable cores name a CPU the machine does not have.
var errCoreNotOnMachine = errors.New("fingerprint: core not on this machine")

// Default NUMA distances (ACPI SLIT): local, and remote when sysfs gives none.
const (
	localDistance  = 10
	remoteDistance = 20
)

// sysfs returns the sysfs root: SysfsRoot, else Root's /sys.
func (c *Config) sysfs() string {
	if c.SysfsRoot != "" {
		return c.SysfsRoot
	}
	return c.path("/sys")
}

// MachineCPUs returns every logical CPU ID the sysfs tree at sysfsRoot
// knows (present, online, or in a NUMA node's cpulist), sorted. When the
// tree names none, it returns nil (the caller decides on a fallback).
func MachineCPUs(sysfsRoot string) []uint16 {
	cpus := readCPUSet(filepath.Join(sysfsRoot, "devices/system/cpu/present"))
	cpus = append(cpus, readCPUSet(filepath.Join(sysfsRoot, "devices/system/cpu/online"))...)
	for _, dir := range numaNodeDirs(sysfsRoot) {
		cpus = append(cpus, readCPUSet(filepath.Join(dir.path, "cpulist"))...)
	}
	slices.Sort(cpus)
	return slices.Compact(cpus)
}

// numaNodeDir is one /sys/devices/system/node/nodeN directory.
type numaNodeDir struct {
	id   uint8
	path string
}

// numaNodeDirs lists the node directories by ID (none without NUMA info).
func numaNodeDirs(sysfsRoot string) []numaNodeDir {
	matches, _ := filepath.Glob(filepath.Join(sysfsRoot, "devices/system/node/node[0-9]*"))
	var out []numaNodeDir
	for _, m := range matches {
		n, err := strconv.ParseUint(strings.TrimPrefix(filepath.Base(m), "node"), 10, 8)
		if err == nil {
			out = append(out, numaNodeDir{id: uint8(n), path: m})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// readCPUSet reads a cpulist file (nil when unreadable or malformed).
func readCPUSet(path string) []uint16 {
	ids, _ := ParseCPUSet(readTrim(path))
	return ids
}

// readUint reads a file holding one unsigned number (0 when absent).
func readUint(path string) uint64 {
	n, _ := strconv.ParseUint(readTrim(path), 10, 64)
	return n
}

// fingerprintTopology reads the NUMA topology from sysfs into
// Resources.Processors.Topology and derives the CPU resources from it, all
// three describing the usable cores (online, not in reserved cores, within
// reservable cores; the cores not Disabled): ReservableCpuCores lists them,
// TotalCpuCores counts them and CpuShares sums their base speeds, so
// CpuShares/TotalCpuCores is the MHz of one core. The cpu.numcores
// attribute counts every online core. Result.ReservedCores gets the online
// cores the config took away. guessMHz is the speed of a core without
// cpufreq; numCPU the online count when sysfs has no cpu/online file. A
// reserved or reservable core the machine lacks is an error.
func fingerprintTopology(cfg *Config, r *Result, guessMHz uint64, numCPU int) error {
	root := cfg.sysfs()
	cpuDir := filepath.Join(root, "devices/system/cpu")
	online, err := ParseCPUSet(readTrim(filepath.Join(cpuDir, "online")))
	if err != nil || len(online) == 0 {
		online = nil
		for i := 0; i < numCPU; i++ {
			online = append(online, uint16(i))
		}
	}
	all := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(online), MachineCPUs(root)...))))
	for key, set := range map[string][]uint16{"reserved": cfg.ReservedCores, "reservable": cfg.ReservableCores} {
		for _, id := range set {
			if _, found := slices.BinarySearch(all, id); !found {
				return fmt.Errorf("%w: %s core %d (the machine has %s)", errCoreNotOnMachine, key, id, FormatCPUSet(all))
			}
		}
	}
	topo, nodeOf := readNUMANodes(root, all, r.Resources.Memory.MemoryMB)
	for _, id := range all {
		c := readCore(cpuDir, id, guessMHz)
		c.NodeID = nodeOf[id]
		_, isOnline := slices.BinarySearch(online, id)
		c.Disable = !isOnline || !cfg.usable(id)
		if !isOnline {
			c.Siblings = nil
		}
		topo.Cores = append(topo.Cores, c)
	}
	applyTopology(r, topo, online)
	return nil
}

// usable reports whether the config leaves core id to scheduling.
func (c *Config) usable(id uint16) bool {
	if slices.Contains(c.ReservedCores, id) {
		return false
	}
	return len(c.ReservableCores) == 0 || slices.Contains(c.ReservableCores, id)
}

// readNUMANodes reads each node's cpulist, memory and distances. Without
// node directories the machine is one node 0 with every CPU and memMB. A CPU
// in no node's cpulist (an offline CPU, which Linux drops from the lists)
// goes to the node its cpuN/nodeM link names, else to the first node.
func readNUMANodes(root string, cpus []uint16, memMB int64) (*structs.Topology, map[uint16]uint8) {
	dirs := numaNodeDirs(root)
	nodeOf := make(map[uint16]uint8, len(cpus))
	if len(dirs) == 0 {
		return &structs.Topology{Nodes: []uint8{0}, Distances: [][]uint16{{localDistance}}, NodeMemoryMB: []int64{memMB}}, nodeOf
	}
	t := &structs.Topology{}
	for i, d := range dirs {
		t.Nodes = append(t.Nodes, d.id)
		for _, id := range readCPUSet(filepath.Join(d.path, "cpulist")) {
			nodeOf[id] = d.id
		}
		t.NodeMemoryMB = append(t.NodeMemoryMB, nodeMemMB(filepath.Join(d.path, "meminfo")))
		t.Distances = append(t.Distances, nodeDistances(filepath.Join(d.path, "distance"), i, len(dirs)))
	}
	for _, id := range cpus {
		if _, ok := nodeOf[id]; ok {
			continue
		}
		nodeOf[id] = t.Nodes[0]
		links, _ := filepath.Glob(filepath.Join(root, "devices/system/cpu", fmt.Sprintf("cpu%d", id), "node[0-9]*"))
		if len(links) > 0 {
			if n, err := strconv.ParseUint(strings.TrimPrefix(filepath.Base(links[0]), "node"), 10, 8); err == nil {
				nodeOf[id] = uint8(n)
			}
		}
	}
	return t, nodeOf
}

// nodeMemMB reads "Node N MemTotal: K kB" from a node's meminfo.
func nodeMemMB(path string) int64 {
	var kb int64
	eachKeyValue(path, ":", func(k, v string) {
		if strings.HasSuffix(k, "MemTotal") {
			kb, _ = strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(v, "kB")), 10, 64)
		}
	})
	return kb / 1024
}

// nodeDistances reads a node's distance line; when it is missing or does
// not have n entries, it is 10 to itself (index self) and 20 to the others.
func nodeDistances(path string, self, n int) []uint16 {
	fields := strings.Fields(readTrim(path))
	out := make([]uint16, n)
	for j := range out {
		if len(fields) == n {
			if d, err := strconv.ParseUint(fields[j], 10, 16); err == nil {
				out[j] = uint16(d)
				continue
			}
		}
		out[j] = remoteDistance
		if j == self {
			out[j] = localDistance
		}
	}
	return out
}

// readCore reads one logical CPU's socket, SMT siblings and speeds. The
// base speed is cpufreq's base_frequency, else cpuinfo_max_freq, else
// guessMHz (GuessSpeed set); the max speed is cpuinfo_max_freq, else the base.
func readCore(cpuDir string, id uint16, guessMHz uint64) structs.Core {
	dir := filepath.Join(cpuDir, fmt.Sprintf("cpu%d", id))
	c := structs.Core{ID: id}
	if pkg, err := strconv.Atoi(readTrim(filepath.Join(dir, "topology/physical_package_id"))); err == nil && pkg >= 0 && pkg < 256 {
		c.SocketID = uint8(pkg)
	}
	c.Siblings = readCPUSet(filepath.Join(dir, "topology/thread_siblings_list"))
	if len(c.Siblings) == 0 {
		c.Siblings = readCPUSet(filepath.Join(dir, "topology/core_cpus_list"))
	}
	if len(c.Siblings) == 0 {
		c.Siblings = []uint16{id}
	}
	maxMHz := readUint(filepath.Join(dir, "cpufreq/cpuinfo_max_freq")) / 1000
	c.BaseSpeed = readUint(filepath.Join(dir, "cpufreq/base_frequency")) / 1000
	if c.BaseSpeed == 0 {
		c.BaseSpeed = maxMHz
	}
	if c.BaseSpeed == 0 {
		c.BaseSpeed, c.GuessSpeed = guessMHz, true
	}
	c.MaxSpeed = max(maxMHz, c.BaseSpeed)
	return c
}

// applyTopology stores topo in r and sets the CPU resources and the cpu.*
// and numa.* attributes from it.
func applyTopology(r *Result, topo *structs.Topology, online []uint16) {
	cpu := structs.NodeCpuResources{ReservableCpuCores: []uint16{}}
	var total int64
	perNode := map[uint8][]uint16{}
	r.ReservedCores = nil
	for _, c := range topo.Cores {
		_, isOnline := slices.BinarySearch(online, c.ID)
		if !isOnline {
			continue
		}
		perNode[c.NodeID] = append(perNode[c.NodeID], c.ID)
		total += int64(c.BaseSpeed)
		if c.Disable {
			r.ReservedCores = append(r.ReservedCores, c.ID)
			continue
		}
		cpu.ReservableCpuCores = append(cpu.ReservableCpuCores, c.ID)
		cpu.CpuShares += int64(c.BaseSpeed)
	}
	cpu.TotalCpuCores = uint16(len(cpu.ReservableCpuCores))
	r.Resources.Cpu = cpu
	r.Resources.Processors = structs.NodeProcessorResources{Topology: topo}
	r.Attributes["cpu.numcores"] = itoa(int64(len(online)))
	r.Attributes["cpu.totalcompute"] = itoa(total)
	r.Attributes["cpu.usablecompute"] = itoa(cpu.CpuShares)
	r.Attributes["cpu.reservablecores"] = itoa(int64(len(cpu.ReservableCpuCores)))
	r.Attributes["numa.node.count"] = itoa(int64(len(topo.Nodes)))
	for _, n := range topo.Nodes {
		r.Attributes[fmt.Sprintf("numa.node%d.cores", n)] = FormatCPUSet(perNode[n])
	}
}
