package jobspec

import (
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/internal/hclutil"
	"github.com/nomadish/nomadish/structs"
)

// decodeNetwork decodes a group's network block:
//
//	network {
//	  mode = "host"
//	  port "http" {}                    # dynamic: the scheduler picks the host port
//	  port "db"   { static = 5432 }     # static: this host port
//	  port "app"  { to = 8080 }         # the task's port, when it differs
//	}
//
// Each problem is reported at its place: a repeated label, a static or to
// port out of range, a static port used twice, a mode other than "host". It
// returns nil for a block with labels.
func (p *parser) decodeNetwork(b *hclsyntax.Block) *structs.NetworkResource {
	if !p.labels(b) {
		return nil
	}
	n := &structs.NetworkResource{}
	labels := map[string]*hclsyntax.Block{}
	static := map[int]string{}
	p.decodeBody(b.Body, bodySpec{
		where: "network",
		attrs: map[string]any{"mode": &n.Mode, "mbits": &n.MBits, "hostname": &n.Hostname},
		blocks: blockFuncs{
			"port": func(pb *hclsyntax.Block) {
				port, isStatic, ok := p.decodePort(pb)
				if !ok {
					return
				}
				if prev := labels[port.Label]; prev != nil {
					p.errorf(pb.LabelRanges[0], "Duplicate port label",
						"The port label %q is already defined at %s.", port.Label, hclutil.Pos(prev.LabelRanges[0]))
					return
				}
				labels[port.Label] = pb
				if !isStatic {
					n.DynamicPorts = append(n.DynamicPorts, port)
					return
				}
				if other, dup := static[port.Value]; dup {
					p.errorf(pb.Body.Attributes["static"].Expr.Range(), "Duplicate static port",
						"The static port %d is already used by port %q.", port.Value, other)
					return
				}
				static[port.Value] = port.Label
				n.ReservedPorts = append(n.ReservedPorts, port)
			},
			"dns": func(db *hclsyntax.Block) {
				if !p.labels(db) {
					return
				}
				n.DNS = &structs.DNSConfig{}
				p.decodeBody(db.Body, bodySpec{where: "dns", attrs: map[string]any{
					"servers": &n.DNS.Servers, "searches": &n.DNS.Searches, "options": &n.DNS.Options}})
			},
		},
		multi: map[string]bool{"port": true},
	})
	if a, ok := b.Body.Attributes["mode"]; ok && !knownNetworkMode(n.Mode) {
		p.errorf(a.Expr.Range(), "Unsupported network mode",
			"The network mode %q is not supported (host, bridge, none or cni/<name>).", n.Mode)
	}
	if n.Mode == "" {
		n.Mode = structs.NetworkModeHost
	}
	return n
}

// decodePort decodes one port block; isStatic says whether it sets a host
// port. ok is false when the block is unusable.
func (p *parser) decodePort(b *hclsyntax.Block) (port structs.Port, isStatic, ok bool) {
	if !p.labels(b, "label") {
		return port, false, false
	}
	port.Label = b.Labels[0]
	p.decodeBody(b.Body, bodySpec{
		where: "port",
		attrs: map[string]any{"static": &port.Value, "to": &port.To, "host_network": &port.HostNetwork},
	})
	ok = true
	if a, set := b.Body.Attributes["static"]; set {
		isStatic = true
		if port.Value < 1 || port.Value > structs.MaxValidPort {
			p.errorf(a.Expr.Range(), "Invalid static port",
				"The static port must be between 1 and %d (got %d).", structs.MaxValidPort, port.Value)
			ok = false
		}
	}
	if a, set := b.Body.Attributes["to"]; set && (port.To < 0 || port.To > structs.MaxValidPort) {
		p.errorf(a.Expr.Range(), "Invalid to port", "The to port must be between 0 and %d (got %d).", structs.MaxValidPort, port.To)
		ok = false
	}
	return port, isStatic, ok
}

// knownNetworkMode: host, bridge, none or cni/<name>.
func knownNetworkMode(m string) bool {
	switch m {
	case structs.NetworkModeHost, structs.NetworkModeBridge, structs.NetworkModeNone:
		return true
	}
	return strings.HasPrefix(m, structs.NetworkModeCNIPrefix) && len(m) > len(structs.NetworkModeCNIPrefix)
}
