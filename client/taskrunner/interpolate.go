package taskrunner

import (
	"regexp"

	"github.com/nomadish/nomadish/structs"
)

// refRe matches a ${...} reference as Nomad's client does
// (helper/args.ReplaceEnv): letters, digits, '_', '-' and '.' only, so
// HCL-like expressions such as ${a + b} are never touched.
var refRe = regexp.MustCompile(`\$\{[a-zA-Z0-9_\-.]+\}`)

// NodeValues returns the node's interpolation values: attr.<name> for
// each attribute, meta.<key> for each node meta key, node.unique.id,
// node.unique.name, node.datacenter, node.region (the client's region, a
// node does not carry one), node.class and node.pool. node may be nil
// (only node.region is then set). The caller owns the returned map.
func NodeValues(node *structs.Node, region string) map[string]string {
	out := map[string]string{"node.region": region}
	if node == nil {
		return out
	}
	for k, v := range node.Attributes {
		out["attr."+k] = v
	}
	for k, v := range node.Meta {
		out["meta."+k] = v
	}
	out["node.unique.id"] = node.ID
	out["node.unique.name"] = node.Name
	out["node.datacenter"] = node.Datacenter
	out["node.class"] = node.NodeClass
	out["node.pool"] = node.NodePool
	return out
}

// Interpolate replaces each ${name} in s with its value from the first of
// sources that has name (the task's environment, then NodeValues); an
// unknown reference is left as it is, as Nomad does. Pure.
func Interpolate(s string, sources ...map[string]string) string {
	if len(s) < 4 {
		return s // shorter than "${x}"
	}
	return refRe.ReplaceAllStringFunc(s, func(ref string) string {
		name := ref[2 : len(ref)-1]
		for _, src := range sources {
			if v, ok := src[name]; ok {
				return v
			}
		}
		return ref
	})
}

// InterpolateConfig returns a copy of a driver config block with every
// string interpolated (Interpolate), through nested maps and lists; keys
// and non-string values are kept. cfg is not modified (it belongs to the
// job). A nil cfg gives nil.
func InterpolateConfig(cfg map[string]any, sources ...map[string]string) map[string]any {
	if cfg == nil {
		return nil
	}
	out := make(map[string]any, len(cfg))
	for k, v := range cfg {
		out[k] = interpolateValue(v, sources)
	}
	return out
}

func interpolateValue(v any, sources []map[string]string) any {
	switch x := v.(type) {
	case string:
		return Interpolate(x, sources...)
	case map[string]any:
		return InterpolateConfig(x, sources...)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = interpolateValue(e, sources)
		}
		return out
	case []map[string]any:
		out := make([]map[string]any, len(x))
		for i, e := range x {
			out[i] = InterpolateConfig(e, sources...)
		}
		return out
	case []string:
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = Interpolate(e, sources...)
		}
		return out
	case map[string]string:
		out := make(map[string]string, len(x))
		for k, e := range x {
			out[k] = Interpolate(e, sources...)
		}
		return out
	default:
		return v
	}
}
