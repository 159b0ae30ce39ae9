package jobcheck

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// Mesh returns, service by service, why the job cannot run without Consul's
// service mesh, which nomadish does not bundle (nil: it can). A service's
// connect block (kept as decoded: the jobspec's snake_case blocks or the
// API's CamelCase JSON) is refused when it has
//   - upstreams: the task reaches them only through a sidecar proxy;
//   - a gateway: the service is an Envoy gateway, nothing else;
//   - native = true: the task itself speaks the mesh's mTLS;
//   - transparent_proxy: the task's traffic goes through the sidecar.
//
// A sidecar_service without upstreams is accepted (the jobspec warns): the
// service is registered and reachable on its port, only unproxied.
func Mesh(job *structs.Job) []string {
	var out []string
	for _, tg := range job.TaskGroups {
		if tg == nil {
			continue
		}
		where := fmt.Sprintf("group %q", tg.Name)
		out = append(out, meshProblems(where, tg.Services)...)
		for _, t := range tg.Tasks {
			if t != nil {
				out = append(out, meshProblems(fmt.Sprintf("%s: task %q", where, t.Name), t.Services)...)
			}
		}
	}
	return out
}

const noMesh = "which needs Consul's service mesh; nomadish does not bundle Consul"

func meshProblems(where string, services []*structs.Service) []string {
	var out []string
	for _, s := range services {
		if s == nil || s.Connect == nil {
			continue
		}
		sw := fmt.Sprintf("%s: service %q", where, s.Name)
		c := s.Connect
		if v, ok := lookup(c, "native").(bool); ok && v {
			out = append(out, fmt.Sprintf("%s: connect native = true means the task speaks Connect's mutual TLS itself, %s, so the task cannot work here; remove the connect block", sw, noMesh))
		}
		if g := lookup(c, "gateway"); !empty(g) {
			out = append(out, fmt.Sprintf("%s: a connect gateway is an Envoy proxy of the mesh, %s, so it cannot run here; remove the service's connect gateway", sw, noMesh))
		}
		proxy := lookup(lookup(c, "sidecar_service"), "proxy")
		if tp := lookup(proxy, "transparent_proxy"); tp != nil {
			out = append(out, fmt.Sprintf("%s: a connect transparent_proxy sends the task's traffic through the sidecar proxy, %s, so the task cannot work here; remove the transparent_proxy block", sw, noMesh))
		}
		if ups := upstreams(proxy); len(ups) > 0 {
			out = append(out, fmt.Sprintf("%s: the task reaches its upstreams (%s) only through the connect sidecar proxy, %s, so the task cannot work here; find them through nomadish's catalog instead (template nomadService) and remove the upstreams", sw, strings.Join(ups, ", "), noMesh))
		}
	}
	return out
}

// lookup returns the value of key in v, a decoded block: a map, or a list
// of maps (the jobspec's repeated blocks: the first that has key). Keys
// compare without case and underscores (sidecar_service is SidecarService).
func lookup(v any, key string) any {
	switch m := v.(type) {
	case map[string]any:
		for k, val := range m {
			if normKey(k) == normKey(key) {
				return val
			}
		}
	case []any:
		for _, e := range m {
			if val := lookup(e, key); val != nil {
				return val
			}
		}
	}
	return nil
}

func normKey(k string) string { return strings.ToLower(strings.ReplaceAll(k, "_", "")) }

// empty reports whether a decoded value holds nothing (nil, an empty map or
// list, or a list of empty maps).
func empty(v any) bool {
	switch m := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, val := range m {
			if !empty(val) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range m {
			if !empty(e) {
				return false
			}
		}
		return true
	case bool:
		return !m
	case string:
		return m == ""
	}
	return false
}

// upstreams returns the destination names of a proxy's upstreams, sorted.
func upstreams(proxy any) []string {
	var names []string
	collect := func(u any) {
		if empty(u) {
			return
		}
		name, _ := lookup(u, "destination_name").(string)
		if name == "" {
			name = "an unnamed upstream"
		}
		names = append(names, fmt.Sprintf("%q", name))
	}
	switch ups := lookup(proxy, "upstreams").(type) {
	case []any:
		for _, u := range ups {
			collect(u)
		}
	case map[string]any:
		collect(ups)
	}
	sort.Strings(names)
	return names
}
