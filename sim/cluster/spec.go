// Package cluster is a simulated cluster's shape: how many nodes, in which
// datacenters and racks, of which classes, each class with the CPU/NUMA
// topology, memory, attributes and meta of its machines. Build turns a
// Spec into structs.Node values shaped like the client's fingerprint.
package cluster

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ErrBadSpec prefixes every validation and parse error of this package.
var ErrBadSpec = errors.New("cluster: bad spec")

// Spec is a cluster's shape.
type Spec struct {
	// Nodes is how many nodes to build.
	Nodes int `json:"nodes" hcl:"nodes,optional"`
	// Datacenters the nodes are dealt to, round robin (default "dc1").
	Datacenters []string `json:"datacenters,omitempty" hcl:"datacenters,optional"`
	// Racks is how many racks per datacenter; the rack is in meta.rack
	// (0: one rack).
	Racks int `json:"racks,omitempty" hcl:"racks,optional"`
	// Classes are the node shapes, mixed by Weight (default: one class,
	// DefaultClass).
	Classes []Class `json:"classes,omitempty" hcl:"class,block"`
}

// Class is one kind of node.
type Class struct {
	// Name is the node class (node.class); "" leaves it unset.
	Name string `json:"name" hcl:"name,label"`
	// Weight is the class's share of the nodes relative to the others
	// (0 counts as 1).
	Weight int `json:"weight,omitempty" hcl:"weight,optional"`
	// Sockets x CoresPerSocket x ThreadsPerCore logical CPUs; one NUMA
	// node per socket, as on most servers.
	Sockets        int `json:"sockets" hcl:"sockets,optional"`
	CoresPerSocket int `json:"cores_per_socket" hcl:"cores_per_socket,optional"`
	ThreadsPerCore int `json:"threads_per_core" hcl:"threads_per_core,optional"`
	// MHz is each logical CPU's base speed.
	MHz int `json:"mhz" hcl:"mhz,optional"`
	// MemoryMB is the node's memory, split evenly over its NUMA nodes.
	MemoryMB int `json:"memory_mb" hcl:"memory_mb,optional"`
	// Attributes and Meta are added to the node's.
	Attributes map[string]string `json:"attributes,omitempty" hcl:"attributes,optional"`
	Meta       map[string]string `json:"meta,omitempty" hcl:"meta,optional"`
}

// DefaultClass is a common two-socket server: 2 x 16 cores x 2 threads at
// 2400 MHz, 256 GiB.
func DefaultClass() Class {
	return Class{Sockets: 2, CoresPerSocket: 16, ThreadsPerCore: 2, MHz: 2400, MemoryMB: 256 * 1024}
}

// LogicalCPUs is the class's logical CPU count.
func (c Class) LogicalCPUs() int { return c.Sockets * c.CoresPerSocket * c.ThreadsPerCore }

// WithDefaults fills zero fields of the spec (one datacenter "dc1",
// one rack, one DefaultClass, weights of at least 1).
func (s Spec) WithDefaults() Spec {
	if len(s.Datacenters) == 0 {
		s.Datacenters = []string{"dc1"}
	}
	if s.Racks <= 0 {
		s.Racks = 1
	}
	if len(s.Classes) == 0 {
		s.Classes = []Class{DefaultClass()}
	}
	cs := make([]Class, len(s.Classes))
	for i, c := range s.Classes {
		if c.Weight <= 0 {
			c.Weight = 1
		}
		cs[i] = c
	}
	s.Classes = cs
	return s
}

// Validate reports the first field out of range, naming it.
func (s Spec) Validate() error {
	if s.Nodes <= 0 {
		return fmt.Errorf("%w: nodes = %d, want at least 1", ErrBadSpec, s.Nodes)
	}
	for i, dc := range s.Datacenters {
		if dc == "" {
			return fmt.Errorf("%w: datacenters[%d] is empty", ErrBadSpec, i)
		}
	}
	if s.Racks < 0 {
		return fmt.Errorf("%w: racks = %d, want 0 or more", ErrBadSpec, s.Racks)
	}
	for i, c := range s.Classes {
		if err := c.validate(); err != nil {
			return fmt.Errorf("%w: classes[%d] (%q): %w", ErrBadSpec, i, c.Name, err)
		}
	}
	return nil
}

func (c Class) validate() error {
	switch {
	case c.Sockets < 1 || c.Sockets > 64:
		return fmt.Errorf("sockets = %d, want 1-64", c.Sockets)
	case c.CoresPerSocket < 1:
		return fmt.Errorf("cores_per_socket = %d, want at least 1", c.CoresPerSocket)
	case c.ThreadsPerCore < 1 || c.ThreadsPerCore > 8:
		return fmt.Errorf("threads_per_core = %d, want 1-8", c.ThreadsPerCore)
	case c.LogicalCPUs() > 65535:
		return fmt.Errorf("%d logical CPUs, want at most 65535", c.LogicalCPUs())
	case c.MHz < 1:
		return fmt.Errorf("mhz = %d, want at least 1", c.MHz)
	case c.MemoryMB < 1:
		return fmt.Errorf("memory_mb = %d, want at least 1", c.MemoryMB)
	case c.Weight < 0:
		return fmt.Errorf("weight = %d, want 0 or more", c.Weight)
	}
	return nil
}

var topologyRE = regexp.MustCompile(`^(\d+)x(\d+)(?:x(\d+))?(?:@(\d+(?:\.\d+)?)(MHz|GHz))?(?:/(\d+(?:\.\d+)?)(MiB|MB|GiB|GB|TiB|TB))?$`)

// ParseTopology parses a class from "SOCKETSxCORESxTHREADS" with an
// optional "@SPEED" and "/MEMORY": "2x32x2", "2x32x2@2400MHz/256GiB",
// "1x8@3.1GHz", "2x16/128GiB" ("2x16" has one thread per core). Fields
// not given are DefaultClass's.
func ParseTopology(spec string) (Class, error) {
	m := topologyRE.FindStringSubmatch(strings.TrimSpace(spec))
	if m == nil {
		return Class{}, fmt.Errorf("%w: topology %q: want SOCKETSxCORES[xTHREADS][@SPEED(MHz|GHz)][/MEMORY(MiB|GiB|TiB)], e.g. 2x32x2@2400MHz/256GiB", ErrBadSpec, spec)
	}
	c := DefaultClass()
	c.Sockets, _ = strconv.Atoi(m[1])
	c.CoresPerSocket, _ = strconv.Atoi(m[2])
	c.ThreadsPerCore = 1
	if m[3] != "" {
		c.ThreadsPerCore, _ = strconv.Atoi(m[3])
	}
	if m[4] != "" {
		f, _ := strconv.ParseFloat(m[4], 64)
		if m[5] == "GHz" {
			f *= 1000
		}
		c.MHz = int(f)
	}
	if m[6] != "" {
		f, _ := strconv.ParseFloat(m[6], 64)
		switch m[7] {
		case "GiB", "GB":
			f *= 1024
		case "TiB", "TB":
			f *= 1024 * 1024
		}
		c.MemoryMB = int(f)
	}
	if err := c.validate(); err != nil {
		return Class{}, fmt.Errorf("%w: topology %q: %w", ErrBadSpec, spec, err)
	}
	return c, nil
}
