// Package sysfstest writes fake Linux sysfs CPU/NUMA trees (the files the
// client's topology fingerprint reads) so tests, the simulator and e2e
// tests can present another machine's topology through sysfs_root.
package sysfstest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Machine is the shape of a fake machine. Logical CPUs are numbered as
// Linux numbers them: first thread of every core (socket by socket, node by
// node), then the second threads in the same order, and so on; so on 2
// sockets x 8 cores x 2 threads, cpu0 and cpu16 are siblings.
type Machine struct {
	Sockets        int // physical packages (default 1)
	NodesPerSocket int // NUMA nodes per socket (default 1)
	CoresPerNode   int // physical cores per NUMA node (default 1)
	ThreadsPerCore int // SMT threads per core (default 1)
	// NodeMemMiB is each NUMA node's memory (default 1024 MiB each).
	NodeMemMiB []int64
	// BaseKHz and MaxKHz are every CPU's cpufreq base_frequency and
	// cpuinfo_max_freq (0: the file is not written).
	BaseKHz, MaxKHz uint64
	// Offline CPUs are left out of cpu/online and of their node's cpulist,
	// and have no topology directory, as Linux shows them.
	Offline []int
	// NoNodeDir omits devices/system/node (a machine without NUMA info).
	NoNodeDir bool
	// CoreCPUsList writes topology/core_cpus_list instead of the older
	// thread_siblings_list.
	CoreCPUsList bool
}

// CPU is one logical CPU of a Machine's layout.
type CPU struct {
	ID, Socket, Node, Core int
	Siblings               []int // the SMT threads of its core, itself included
}

func (m Machine) norm() Machine {
	for _, p := range []*int{&m.Sockets, &m.NodesPerSocket, &m.CoresPerNode, &m.ThreadsPerCore} {
		*p = max(*p, 1)
	}
	return m
}

// Nodes is the machine's NUMA node count.
func (m Machine) Nodes() int { m = m.norm(); return m.Sockets * m.NodesPerSocket }

// CPUs lays out the machine's logical CPUs by ID.
func (m Machine) CPUs() []CPU {
	m = m.norm()
	physical := m.Nodes() * m.CoresPerNode
	cpus := make([]CPU, physical*m.ThreadsPerCore)
	for id := range cpus {
		core := id % physical
		node := core / m.CoresPerNode
		c := CPU{ID: id, Node: node, Socket: node / m.NodesPerSocket, Core: core % m.CoresPerNode}
		for t := 0; t < m.ThreadsPerCore; t++ {
			c.Siblings = append(c.Siblings, core+t*physical)
		}
		cpus[id] = c
	}
	return cpus
}

// Distance is the SLIT distance the fake writes: 10 to itself, 12 to a node
// on the same socket, 21 across sockets.
func (m Machine) Distance(a, b int) int {
	m = m.norm()
	switch {
	case a == b:
		return 10
	case a/m.NodesPerSocket == b/m.NodesPerSocket:
		return 12
	}
	return 21
}

// NodeMem returns node n's memory in MiB.
func (m Machine) NodeMem(n int) int64 {
	if n < len(m.NodeMemMiB) {
		return m.NodeMemMiB[n]
	}
	return 1024
}

// Write writes the machine's tree under sysfsRoot (which is created): the
// directory to give as the client's sysfs_root.
func Write(sysfsRoot string, m Machine) error {
	files := map[string]string{}
	cpus := m.CPUs()
	var online []int
	perNode := map[int][]int{}
	for _, c := range cpus {
		if slices.Contains(m.Offline, c.ID) {
			files[fmt.Sprintf("devices/system/cpu/cpu%d/online", c.ID)] = "0\n"
			continue
		}
		online = append(online, c.ID)
		perNode[c.Node] = append(perNode[c.Node], c.ID)
		m.writeCPU(files, c)
	}
	files["devices/system/cpu/online"] = List(online) + "\n"
	files["devices/system/cpu/present"] = fmt.Sprintf("0-%d\n", len(cpus)-1)
	files["devices/system/cpu/possible"] = fmt.Sprintf("0-%d\n", len(cpus)-1)
	if !m.NoNodeDir {
		m.writeNodes(files, perNode)
	}
	for p, content := range files {
		full := filepath.Join(sysfsRoot, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (m Machine) writeCPU(files map[string]string, c CPU) {
	dir := fmt.Sprintf("devices/system/cpu/cpu%d/", c.ID)
	files[dir+"online"] = "1\n"
	files[dir+"topology/physical_package_id"] = strconv.Itoa(c.Socket) + "\n"
	files[dir+"topology/core_id"] = strconv.Itoa(c.Core) + "\n"
	sib := "topology/thread_siblings_list"
	if m.CoreCPUsList {
		sib = "topology/core_cpus_list"
	}
	files[dir+sib] = List(c.Siblings) + "\n"
	if m.BaseKHz > 0 {
		files[dir+"cpufreq/base_frequency"] = fmt.Sprintf("%d\n", m.BaseKHz)
	}
	if m.MaxKHz > 0 {
		files[dir+"cpufreq/cpuinfo_max_freq"] = fmt.Sprintf("%d\n", m.MaxKHz)
	}
}

func (m Machine) writeNodes(files map[string]string, perNode map[int][]int) {
	n := m.Nodes()
	var nodes []int
	for i := 0; i < n; i++ {
		nodes = append(nodes, i)
		dir := fmt.Sprintf("devices/system/node/node%d/", i)
		files[dir+"cpulist"] = List(perNode[i]) + "\n"
		kb := m.NodeMem(i) * 1024
		files[dir+"meminfo"] = fmt.Sprintf("Node %d MemTotal:       %d kB\nNode %d MemFree:        %d kB\n", i, kb, i, kb/2)
		var d []string
		for j := 0; j < n; j++ {
			d = append(d, strconv.Itoa(m.Distance(i, j)))
		}
		files[dir+"distance"] = strings.Join(d, " ") + "\n"
	}
	files["devices/system/node/online"] = List(nodes) + "\n"
	files["devices/system/node/possible"] = List(nodes) + "\n"
}

// List renders sorted CPU IDs as a cpulist ("0-7,16-23").
func List(ids []int) string {
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		} else {
			parts = append(parts, strconv.Itoa(ids[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// TB is the part of testing.TB that Temp uses (so this package does not
// import testing).
type TB interface {
	Helper()
	TempDir() string
	Fatalf(format string, args ...any)
}

// Temp writes m under "sys" in a new temporary directory and returns that
// sysfs root (its parent can hold a fake /proc as fingerprint.Config.Root);
// a write error fails the test.
func Temp(t TB, m Machine) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "sys")
	if err := Write(root, m); err != nil {
		t.Fatalf("sysfstest: writing the fake sysfs: %v", err)
	}
	return root
}
