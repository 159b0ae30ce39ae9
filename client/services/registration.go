package services

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/nomadish/nomadish/client/checks"
	"github.com/nomadish/nomadish/structs"
)

// idPrefix starts every registration ID (Nomad's NomadTaskPrefix).
const idPrefix = "_nomad-task-"

// GroupOwner is the owner name of a group's services in their IDs
// (Nomad's "group-<name>").
func GroupOwner(group string) string { return "group-" + group }

// ServiceID is a registration's ID:
// _nomad-task-<allocID>-<owner>-<service name>-<port label>.
func ServiceID(allocID, owner string, s *structs.Service) string {
	return fmt.Sprintf("%s%s-%s-%s-%s", idPrefix, allocID, owner, s.Name, s.PortLabel)
}

// Registration builds the registration of service s of the allocation,
// owned by owner (GroupOwner or a task name), on node. Address and port
// follow address_mode: auto and host are the node's address and the host
// port of the port label; alloc (and driver, the same for now) the
// allocation's address in its network namespace and the port's `to`; a
// numeric port label is that port; `address` overrides the address. A
// canary of an unpromoted deployment carries canary_tags when it has any.
// Errors name the service and what is missing.
func Registration(alloc *structs.Allocation, node *structs.Node, owner string, s *structs.Service) (*structs.ServiceRegistration, error) {
	addr, port, err := Address(alloc, node, s.AddressMode, s.PortLabel)
	if err != nil {
		return nil, fmt.Errorf("service %q: %w", s.Name, err)
	}
	if s.Address != "" {
		addr = s.Address
	}
	tags := s.Tags
	if alloc.DeploymentStatus.IsCanary() && len(s.CanaryTags) > 0 {
		tags = s.CanaryTags
	}
	ns := alloc.Namespace
	if ns == "" {
		ns = structs.DefaultNamespace
	}
	r := &structs.ServiceRegistration{
		ID: ServiceID(alloc.ID, owner, s), ServiceName: s.Name, Namespace: ns, JobID: alloc.JobID,
		AllocID: alloc.ID, Tags: slices.Clone(tags), Address: addr, Port: port,
	}
	if node != nil {
		r.NodeID, r.Datacenter = node.ID, node.Datacenter
	}
	if r.NodeID == "" {
		r.NodeID = alloc.NodeID
	}
	return r, nil
}

// Address resolves an address mode and port label to an address and port
// (see Registration). An empty label gives port 0.
func Address(alloc *structs.Allocation, node *structs.Node, mode, label string) (string, int, error) {
	var mapping *structs.AllocatedPortMapping
	if label != "" {
		mapping = portMapping(alloc, label)
	}
	number, numErr := strconv.Atoi(label)
	switch mode {
	case "", structs.AddressModeAuto, structs.AddressModeHost:
		addr := nodeAddress(node)
		switch {
		case label == "":
			return addr, 0, nil
		case mapping != nil:
			if mapping.HostIP != "" {
				addr = mapping.HostIP
			}
			return addr, mapping.Value, nil
		case numErr == nil:
			return addr, number, nil
		}
		return "", 0, fmt.Errorf("port label %q is not a port of the group's network", label)
	case structs.AddressModeAlloc, structs.AddressModeDriver:
		if alloc.NetworkStatus == nil || alloc.NetworkStatus.Address == "" {
			return "", 0, fmt.Errorf("address_mode %q: the allocation has no network address (not a bridge or cni network)", mode)
		}
		addr := alloc.NetworkStatus.Address
		switch {
		case label == "":
			return addr, 0, nil
		case mapping != nil:
			if mapping.To > 0 {
				return addr, mapping.To, nil
			}
			return addr, mapping.Value, nil
		case numErr == nil:
			return addr, number, nil
		}
		return "", 0, fmt.Errorf("port label %q is not a port of the group's network", label)
	}
	return "", 0, fmt.Errorf("unknown address_mode %q", mode)
}

func portMapping(alloc *structs.Allocation, label string) *structs.AllocatedPortMapping {
	if alloc.AllocatedResources == nil {
		return nil
	}
	for i := range alloc.AllocatedResources.Shared.Ports {
		if p := &alloc.AllocatedResources.Shared.Ports[i]; p.Label == label {
			return p
		}
	}
	return nil
}

func nodeAddress(node *structs.Node) string {
	if node == nil {
		return ""
	}
	return node.Attributes["unique.network.ip-address"]
}

// CheckTarget is where check c of service s (registered as reg) connects:
// the registration's address and port unless the check names its own port
// label or address mode.
func CheckTarget(alloc *structs.Allocation, node *structs.Node, s *structs.Service, c *structs.ServiceCheck, reg *structs.ServiceRegistration) (checks.Target, error) {
	if c.PortLabel == "" && c.AddressMode == "" {
		return checks.Target{Address: reg.Address, Port: reg.Port}, nil
	}
	mode, label := c.AddressMode, c.PortLabel
	if mode == "" {
		mode = s.AddressMode
	}
	if label == "" {
		label = s.PortLabel
	}
	addr, port, err := Address(alloc, node, mode, label)
	if err != nil {
		return checks.Target{}, fmt.Errorf("check %q of service %q: %w", c.Name, s.Name, err)
	}
	return checks.Target{Address: addr, Port: port}, nil
}
