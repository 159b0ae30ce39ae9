package jobspec

import (
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/internal/hclutil"
	"github.com/nomadish/nomadish/structs"
)

// decodeNetwork decodes a group's network block:
//
//	network {
//	  mode     = "bridge"               # host (default), bridge, none, cni/<name>
//	  hostname = "web"                  # not in host mode
//	  dns { servers = ["1.1.1.1"] }
//	  port "http" {}                    # dynamic: the scheduler picks the host port
//	  port "db"   { static = 5432 }     # static: this host port
//	  port "app"  { to = 8080 }         # the task's port, when it differs (-1: the host port, bridge mode)
//	}
//
// Each problem is reported at its place: a repeated label, a static or to
// port out of range, a static port used twice, an unknown mode, a hostname
// in host mode, a DNS server that is not an IP. It returns nil for a block
// with labels.
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
				port, isStatic, ok := p.decodePort(pb, n.Mode)
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
	p.checkNetwork(b.Body, n)
	if n.Mode == "" {
		n.Mode = structs.NetworkModeHost
	}
	return n
}

// decodePort decodes one port block; isStatic says whether it sets a host
// port. ok is false when the block is unusable.
func (p *parser) decodePort(b *hclsyntax.Block, mode string) (port structs.Port, isStatic, ok bool) {
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
	if a, set := b.Body.Attributes["to"]; set {
		if msg := structs.PortToProblem(mode, port.To); msg != "" {
			p.errorf(a.Expr.Range(), "Invalid to port", "The port's %s.", msg)
			ok = false
		}
	}
	return port, isStatic, ok
}

// checkNetwork reports, at their arguments, a network's unknown mode, a
// hostname in host mode (or not a DNS name) and DNS servers that are not IP
// addresses.
func (p *parser) checkNetwork(body *hclsyntax.Body, n *structs.NetworkResource) {
	if a, ok := body.Attributes["mode"]; ok {
		if msg := structs.NetworkModeProblem(n.Mode); msg != "" {
			p.errorf(a.Expr.Range(), "Invalid network mode", "The %s.", msg)
		}
	}
	if a, ok := body.Attributes["hostname"]; ok {
		if msg := structs.HostnameProblem(n.Mode, n.Hostname); msg != "" {
			p.errorf(a.Expr.Range(), "Invalid hostname", "The %s.", msg)
		}
	}
	if n.DNS == nil {
		return
	}
	for _, db := range body.Blocks {
		a, ok := db.Body.Attributes["servers"]
		if db.Type != "dns" || !ok {
			continue
		}
		for _, srv := range n.DNS.Servers {
			if msg := structs.DNSServerProblem(srv); msg != "" {
				p.errorf(a.Expr.Range(), "Invalid DNS server", "The %s.", msg)
			}
		}
	}
}
