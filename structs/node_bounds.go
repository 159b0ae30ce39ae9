package structs

import "fmt"

// nodeIDRule bounds node IDs and secrets: a UUID fits with room to spare.
var nodeIDRule = nameRule{max: MaxNameLength, noSpace: true, noSlash: true}

// ValidateBounds checks what a node states about itself at registration
// against the same ceilings as jobs (validate_bounds.go): its ID, secret,
// name, datacenter, class, pool and meta keys, and every resource it
// advertises or reserves (never negative, never over MaxCPU, MaxCores,
// MaxMemoryMB, MaxDiskMB, MaxNetworkMBits, ports within 0-65535). The
// error lists every problem, each naming the field. Node.Register calls it.
func (n *Node) ValidateBounds() error {
	var errs MultiError
	addName(&errs, "", "node ID", n.ID, nodeIDRule)
	addName(&errs, "", "node secret ID", n.SecretID, nodeIDRule)
	addName(&errs, "", "node name", n.Name, jobNameRule)
	addName(&errs, "", "node datacenter", n.Datacenter, labelRule)
	addName(&errs, "", "node class", n.NodeClass, labelRule)
	if n.NodePool != "" && !nodePoolRE.MatchString(n.NodePool) {
		errs.Add(fmt.Errorf("node pool %.140q must be 1-%d letters, digits, '-', '_' or '.'", n.NodePool, MaxNameLength))
	}
	validateMeta(&errs, "node ", n.Meta)
	if r := n.NodeResources; r != nil {
		r.validateBounds(&errs)
	}
	if r := n.ReservedResources; r != nil {
		r.validateBounds(&errs)
	}
	return errs.ErrorOrNil()
}

// boundField is one resource amount and its allowed range [0, max].
type boundField struct {
	name string
	v    int64
	max  int64
}

func addBounds(errs *MultiError, fields []boundField) {
	for _, f := range fields {
		if f.v < 0 || f.v > f.max {
			errs.Add(fmt.Errorf("%s %d out of range [0, %d]", f.name, f.v, f.max))
		}
	}
}

func (r *NodeResources) validateBounds(errs *MultiError) {
	addBounds(errs, []boundField{
		{"NodeResources.Cpu.CpuShares", r.Cpu.CpuShares, MaxCPU},
		{"NodeResources.Cpu.TotalCpuCores", int64(r.Cpu.TotalCpuCores), MaxCores},
		{"NodeResources.Memory.MemoryMB", r.Memory.MemoryMB, MaxMemoryMB},
		{"NodeResources.Disk.DiskMB", r.Disk.DiskMB, MaxDiskMB},
		{"NodeResources.MinDynamicPort", int64(r.MinDynamicPort), MaxValidPort},
		{"NodeResources.MaxDynamicPort", int64(r.MaxDynamicPort), MaxValidPort},
	})
	for _, c := range r.Cpu.ReservableCpuCores {
		if int(c) >= MaxCores {
			errs.Add(fmt.Errorf("NodeResources.Cpu.ReservableCpuCores: core %d out of range [0, %d)", c, MaxCores))
			break
		}
	}
	for i, nw := range r.Networks {
		if nw != nil {
			addBounds(errs, []boundField{{fmt.Sprintf("NodeResources.Networks[%d].MBits", i), int64(nw.MBits), MaxNetworkMBits}})
		}
	}
}

func (r *NodeReservedResources) validateBounds(errs *MultiError) {
	addBounds(errs, []boundField{
		{"ReservedResources.Cpu.CpuShares", r.Cpu.CpuShares, MaxCPU},
		{"ReservedResources.Memory.MemoryMB", r.Memory.MemoryMB, MaxMemoryMB},
		{"ReservedResources.Disk.DiskMB", r.Disk.DiskMB, MaxDiskMB},
	})
	for _, c := range r.Cpu.ReservedCpuCores {
		if int(c) >= MaxCores {
			errs.Add(fmt.Errorf("ReservedResources.Cpu.ReservedCpuCores: core %d out of range [0, %d)", c, MaxCores))
			break
		}
	}
}
