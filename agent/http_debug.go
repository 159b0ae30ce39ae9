package agent

import (
	"net/http"
	"net/http/pprof"
)

// debugRoutes registers Go's profiling endpoints under /debug/pprof/ when
// the agent's enable_debug is set (Nomad's key), so that
// `go tool pprof http://<agent>/debug/pprof/heap` (or .../profile) reads the
// agent process itself. Off by default: a profile costs CPU and shows the
// process's internals. With ACLs on they need agent:write
// (http_acl_routes.go), as Nomad's /v1/agent/pprof.
func (s *httpServer) debugRoutes(h func(string, handlerFunc)) {
	if !s.EnableDebug {
		return
	}
	for pattern, f := range map[string]http.HandlerFunc{
		"GET /debug/pprof/":        pprof.Index, // and the named profiles: heap, goroutine, allocs, ...
		"GET /debug/pprof/cmdline": pprof.Cmdline,
		"GET /debug/pprof/profile": pprof.Profile,
		"GET /debug/pprof/symbol":  pprof.Symbol,
		"GET /debug/pprof/trace":   pprof.Trace,
	} {
		h(pattern, func(w http.ResponseWriter, r *http.Request) (any, error) {
			f(w, r)
			return nil, nil
		})
	}
}
