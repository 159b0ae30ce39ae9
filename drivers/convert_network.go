package drivers

import (
	"github.com/nomadish/nomadish/drivers/base"
	pb "github.com/nomadish/nomadish/drivers/proto"
)

// networkToPB carries a task's or allocation's namespace over the wire;
// nil (host networking) stays nil.
func networkToPB(n *base.NetworkIsolation) *pb.NetworkIsolation {
	if n == nil {
		return nil
	}
	return &pb.NetworkIsolation{Path: n.Path, Labels: n.Labels, HostsPath: n.HostsPath, ResolvConfPath: n.ResolvConfPath}
}

func networkFromPB(p *pb.NetworkIsolation) *base.NetworkIsolation {
	if p == nil {
		return nil
	}
	n := &base.NetworkIsolation{Path: p.Path, HostsPath: p.HostsPath, ResolvConfPath: p.ResolvConfPath}
	if len(p.Labels) > 0 {
		n.Labels = p.Labels
	}
	return n
}
