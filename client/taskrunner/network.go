package taskrunner

import (
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// groupNetwork is the allocation's network namespace the alloc runner set
// up (bridge, none and cni modes; client/allocrunner/network_hook.go).
type groupNetwork struct {
	iso    *base.NetworkIsolation
	status *structs.AllocNetworkStatus
}

// SetNetwork gives the task the group's namespace (base.TaskConfig.Network
// of every start from now on) and its address (the NOMAD_ALLOC_* port
// variables). The alloc runner calls it before Run.
func (tr *TaskRunner) SetNetwork(iso *base.NetworkIsolation, status *structs.AllocNetworkStatus) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.network = groupNetwork{iso: iso, status: status}
}

// withNetwork returns alloc with the group network's status when the
// server's copy does not have it yet, and the isolation to start in.
// alloc is not modified.
func (tr *TaskRunner) withNetwork(alloc *structs.Allocation) (*structs.Allocation, *base.NetworkIsolation) {
	tr.mu.Lock()
	n := tr.network
	tr.mu.Unlock()
	if n.status != nil && alloc.NetworkStatus == nil {
		cp := *alloc
		cp.NetworkStatus = n.status
		alloc = &cp
	}
	return alloc, n.iso
}
