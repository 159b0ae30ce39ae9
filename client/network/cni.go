package network

import (
	"context"

	"fmt"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/types"
	types100 "github.com/containernetworking/cni/pkg/types/100"

	"github.com/nomadish/nomadish/structs"
)

// ifName is the interface CNI creates inside the namespace.
const ifName = "eth0"

// runtimeConf is the CNI runtime configuration of an allocation.
func runtimeConf(rec *Record) *libcni.RuntimeConf {
	rt := &libcni.RuntimeConf{ContainerID: rec.AllocID, NetNS: rec.NSPath, IfName: ifName}
	if len(rec.Ports) > 0 {
		rt.CapabilityArgs = map[string]any{"portMappings": rec.Ports}
	}
	return rt
}

// cniAdd runs CNI ADD of rec's conflist in rec's namespace and returns the
// address it got.
func (m *Manager) cniAdd(ctx context.Context, rec *Record) (*structs.AllocNetworkStatus, error) {
	list, err := libcni.NetworkConfFromBytes(rec.ConfList)
	if err != nil {
		return nil, fmt.Errorf("parsing conflist: %w", err)
	}
	res, err := m.cni.AddNetworkList(ctx, list, runtimeConf(rec))
	if err != nil {
		return nil, fmt.Errorf("CNI ADD of network %q: %w", list.Name, err)
	}
	return statusOf(res, rec.NSPath)
}

// cniDel runs CNI DEL: the IPAM lease, the portmap and firewall rules and
// the veth go. Plugins treat what is already gone as done.
func (m *Manager) cniDel(ctx context.Context, rec *Record) error {
	list, err := libcni.NetworkConfFromBytes(rec.ConfList)
	if err != nil {
		return fmt.Errorf("parsing conflist: %w", err)
	}
	rt := runtimeConf(rec)
	if !IsNamespace(rec.NSPath) {
		rt.NetNS = "" // gone: plugins release what is outside it
	}
	if err := m.cni.DelNetworkList(ctx, list, rt); err != nil {
		return fmt.Errorf("CNI DEL of network %q: %w", list.Name, err)
	}
	return nil
}

// statusOf picks the interface in the namespace and its first IPv4 (and
// IPv6) address from a CNI result.
func statusOf(res types.Result, nsPath string) (*structs.AllocNetworkStatus, error) {
	r, err := types100.NewResultFromResult(res)
	if err != nil {
		return nil, fmt.Errorf("reading CNI result: %w", err)
	}
	st := &structs.AllocNetworkStatus{}
	for _, ip := range r.IPs {
		if ip.Interface == nil || *ip.Interface < 0 || *ip.Interface >= len(r.Interfaces) {
			continue
		}
		iface := r.Interfaces[*ip.Interface]
		if iface.Sandbox == "" || iface.Sandbox != nsPath || ip.Address.IP.IsLoopback() {
			continue
		}
		if ip.Address.IP.To4() != nil && st.Address == "" {
			st.InterfaceName, st.Address = iface.Name, ip.Address.IP.String()
		} else if ip.Address.IP.To4() == nil && st.AddressIPv6 == "" {
			st.AddressIPv6 = ip.Address.IP.String()
			if st.InterfaceName == "" {
				st.InterfaceName = iface.Name
			}
		}
	}
	return st, nil
}
