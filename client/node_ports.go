package client

import "github.com/nomadish/nomadish/structs"

// withPortRange sets the node's dynamic port range from the config (Nomad's
// 20000-32000 when it sets none) and returns r.
func withPortRange(r *structs.NodeResources, cfg Config) *structs.NodeResources {
	if r == nil {
		return r
	}
	r.MinDynamicPort, r.MaxDynamicPort = structs.DefaultMinDynamicPort, structs.DefaultMaxDynamicPort
	if cfg.MinDynamicPort > 0 && cfg.MaxDynamicPort >= cfg.MinDynamicPort {
		r.MinDynamicPort, r.MaxDynamicPort = cfg.MinDynamicPort, cfg.MaxDynamicPort
	}
	return r
}
