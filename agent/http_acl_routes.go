package agent

import (
	"net/http"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/structs"
)

// routeNeed is what a route requires of the request's ACL token. Every
// route declares one in routeNeeds (TestEveryRouteDeclaresACL); with ACLs
// on, authorize checks the HTTP-level ones before the handler runs, and
// the RPC endpoints check again (a direct RPC caller meets the same rule).
type routeNeed struct {
	// Kind is one of:
	//   needNone:       anyone (status, health, metrics, bootstrap)
	//   needNamespace:  Cap in the ?namespace= of the request ("*": the
	//                   RPC filters the list)
	//   needObject:     Cap in the namespace of the object the route names,
	//                   checked by the RPC once it has looked it up (the
	//                   namespace is in the body or the object)
	//   needSelf:       the /v1/acl endpoints check the token themselves
	//   needMigrate:    Cap on the allocation the route names, or that
	//                   allocation's migrate token, checked by the handler
	//                   on the agent whose client holds the allocation
	//   needNode, needAgent, needOperator: Cap "read" or "write"
	//   needManagement: a management token
	Kind string
	Cap  string
}

const (
	needNone       = "none"
	needNamespace  = "namespace"
	needObject     = "object"
	needSelf       = "self"
	needMigrate    = "object-or-migrate-token"
	needNode       = "node"
	needAgent      = "agent"
	needOperator   = "operator"
	needManagement = "management"
)

func nsNeed(c string) routeNeed     { return routeNeed{needNamespace, c} }
func objectNeed(c string) routeNeed { return routeNeed{needObject, c} }

var (
	public        = routeNeed{Kind: needNone}
	selfChecked   = routeNeed{Kind: needSelf}
	nodeRead      = routeNeed{needNode, "read"}
	nodeWrite     = routeNeed{needNode, "write"}
	agentRead     = routeNeed{needAgent, "read"}
	agentWrite    = routeNeed{needAgent, "write"}
	operatorRead  = routeNeed{needOperator, "read"}
	operatorWrite = routeNeed{needOperator, "write"}
	management    = routeNeed{Kind: needManagement}
)

// routeNeeds declares every route's need, by its mux pattern. A pattern
// registered without an entry is refused to all but management tokens.
var routeNeeds = func() map[string]routeNeed {
	m := map[string]routeNeed{}
	writes := func(path string, n routeNeed) { m["PUT "+path], m["POST "+path] = n, n }
	const (
		submit  = acl.NamespaceCapabilitySubmitJob
		read    = acl.NamespaceCapabilityReadJob
		list    = acl.NamespaceCapabilityListJobs
		life    = acl.NamespaceCapabilityAllocLifecycle
		readFS  = acl.NamespaceCapabilityReadFS
		readLog = acl.NamespaceCapabilityReadLogs
	)
	writes("/v1/jobs", objectNeed(submit)) // the namespace is the job's
	writes("/v1/jobs/parse", nsNeed(acl.NamespaceCapabilityParseJob))
	writes("/v1/job/{id}", objectNeed(submit))
	writes("/v1/job/{id}/plan", objectNeed(submit))
	writes("/v1/job/{id}/revert", nsNeed(submit))
	writes("/v1/job/{id}/scale", nsNeed(acl.NamespaceCapabilityScaleJob))
	writes("/v1/job/{id}/stable", nsNeed(submit))
	m["GET /v1/jobs"] = nsNeed(list)
	m["GET /v1/job/{id}"] = nsNeed(read)
	m["DELETE /v1/job/{id}"] = nsNeed(submit)
	for _, p := range []string{"allocations", "evaluations", "summary", "versions", "deployments", "deployment", "submission"} {
		m["GET /v1/job/{id}/"+p] = nsNeed(read)
	}
	m["GET /v1/job/{id}/scale"] = nsNeed(acl.NamespaceCapabilityReadJobScaling)
	writes("/v1/job/{id}/dispatch", nsNeed(acl.NamespaceCapabilityDispatchJob))
	writes("/v1/job/{id}/periodic/force", selfChecked) // dispatch-job or submit-job, as Nomad: Job.PeriodicForce checks
	m["GET /v1/scaling/policies"] = nsNeed(acl.NamespaceCapabilityListScalingPolicies)
	m["GET /v1/scaling/policy/{id}"] = nsNeed(acl.NamespaceCapabilityReadScalingPolicy)
	// http_job_evaluate.go: read-job, as Nomad's Job.Evaluate
	writes("/v1/job/{id}/evaluate", nsNeed(read))

	m["GET /v1/allocations"] = nsNeed(read)
	m["GET /v1/allocation/{id}"] = objectNeed(read)
	writes("/v1/allocation/{id}/stop", objectNeed(life))
	m["GET /v1/client/fs/logs/{alloc}"] = objectNeed(readLog)
	for _, p := range []string{"ls", "stat", "cat", "readat", "stream"} { // stream: http_fs_stream.go
		m["GET /v1/client/fs/"+p+"/{alloc}"] = objectNeed(readFS)
	}
	m["GET /v1/client/allocation/{id}/exec"] = objectNeed(acl.NamespaceCapabilityAllocExec)
	m["GET /v1/client/allocation/{id}/stats"] = objectNeed(read)
	m["GET /v1/client/allocation/{id}/checks"] = objectNeed(read)                 // http_alloc_checks.go
	m["GET /v1/allocation/{id}/checks"] = objectNeed(read)                        // http_alloc_checks.go
	m["GET /v1/client/allocation/{id}/snapshot"] = routeNeed{needMigrate, readFS} // http_alloc_snapshot.go
	writes("/v1/client/allocation/{id}/signal", objectNeed(life))
	writes("/v1/client/allocation/{id}/restart", objectNeed(life))
	// http_client_gc.go: node gc needs node write, alloc gc alloc-lifecycle
	// (Nomad's); the official client sends both as GET.
	m["GET /v1/client/gc"] = nodeWrite
	writes("/v1/client/gc", nodeWrite)
	m["GET /v1/client/allocation/{id}/gc"] = objectNeed(life)
	writes("/v1/client/allocation/{id}/gc", objectNeed(life))
	m["GET /v1/client/stats"] = nodeRead // http_client_stats.go: host stats, as Nomad

	m["GET /v1/nodes"], m["GET /v1/node/{id}"], m["GET /v1/node/{id}/{sub}"] = nodeRead, nodeRead, nodeRead // {sub}: allocations
	writes("/v1/node/{id}/drain", nodeWrite)
	writes("/v1/node/{id}/eligibility", nodeWrite)

	m["GET /v1/deployments"] = nsNeed(read)
	m["GET /v1/deployment/{id}"] = objectNeed(read)
	m["GET /v1/deployment/allocations/{id}"] = objectNeed(read)
	for _, p := range []string{"promote", "fail", "pause"} {
		writes("/v1/deployment/"+p+"/{id}", objectNeed(submit))
	}
	m["GET /v1/evaluations"] = nsNeed(read)
	m["GET /v1/evaluation/{id}"] = objectNeed(read)
	m["GET /v1/evaluation/{id}/allocations"] = objectNeed(read)
	m["DELETE /v1/evaluations"] = management // http_eval_delete.go

	m["GET /v1/status/leader"], m["GET /v1/status/peers"], m["GET /v1/regions"] = public, public, public
	m["GET /v1/agent/health"], m["GET /v1/metrics"] = public, public
	m["GET /v1/agent/self"] = agentRead
	for _, p := range []string{"", "cmdline", "profile", "symbol", "trace"} { // http_debug.go (enable_debug)
		m["GET /debug/pprof/"+p] = agentWrite
	}
	m["GET /v1/agent/members"] = nodeRead
	writes("/v1/agent/join", agentWrite)
	writes("/v1/agent/force-leave", agentWrite)
	writes("/v1/agent/keyring/{op}", agentWrite)
	m["GET /v1/agent/keyring/list"] = agentWrite

	m["GET /v1/operator/scheduler/configuration"] = operatorRead
	writes("/v1/operator/scheduler/configuration", operatorWrite)
	m["GET /v1/operator/raft/configuration"] = operatorRead
	m["DELETE /v1/operator/raft/peer"] = operatorWrite
	m["GET /v1/operator/snapshot"] = management
	writes("/v1/operator/snapshot", management)

	// Namespaces and node pools: their endpoints check the token
	// (server/endpoints/tenancy_acl.go): namespace writes need management,
	// a namespace read any capability in it; node pools their node_pool
	// rule (read, write, delete); lists keep what the token may see.
	for _, p := range []string{"GET /v1/namespaces", "GET /v1/namespace/{name}", "DELETE /v1/namespace/{name}",
		"PUT /v1/namespace", "POST /v1/namespace", "PUT /v1/namespace/{name}", "POST /v1/namespace/{name}",
		"GET /v1/node/pools", "PUT /v1/node/pools", "POST /v1/node/pools", "GET /v1/node/pool/{name}",
		"DELETE /v1/node/pool/{name}", "GET /v1/node/pool/{name}/jobs", "GET /v1/node/pool/{name}/nodes"} {
		m[p] = selfChecked
	}

	// Variables: their endpoints check the `variables` rules (read, list,
	// write, destroy) on each path; the keyring needs management.
	m["GET /v1/vars"], m["GET /v1/var/{path...}"], m["DELETE /v1/var/{path...}"] = selfChecked, selfChecked, selfChecked
	writes("/v1/var/{path...}", selfChecked)
	m["GET /v1/operator/keyring/keys"] = selfChecked
	// Services: ServiceRegistration.* check read-job (list, get) and
	// submit-job or the registration's node secret (delete).
	m["GET /v1/services"], m["GET /v1/service/{name}"], m["DELETE /v1/service/{name}/{id}"] = selfChecked, selfChecked, selfChecked
	writes("/v1/operator/keyring/rotate", selfChecked)
	// The event stream filters each event by the token (http_events.go).
	m["GET /v1/event/stream"] = selfChecked

	writes("/v1/acl/bootstrap", public)
	for _, p := range []string{"PUT /v1/acl/policy/{name}", "POST /v1/acl/policy/{name}", "PUT /v1/acl/token", "POST /v1/acl/token",
		"PUT /v1/acl/token/{accessor}", "POST /v1/acl/token/{accessor}", "PUT /v1/acl/role", "POST /v1/acl/role",
		"PUT /v1/acl/role/{id}", "POST /v1/acl/role/{id}", "GET /v1/acl/policies", "GET /v1/acl/policy/self",
		"GET /v1/acl/policy/{name}", "DELETE /v1/acl/policy/{name}", "GET /v1/acl/tokens", "GET /v1/acl/token/self",
		"GET /v1/acl/token/{accessor}", "DELETE /v1/acl/token/{accessor}", "GET /v1/acl/roles", "GET /v1/acl/role/{id}",
		"GET /v1/acl/role/name/{name}", "DELETE /v1/acl/role/{id}"} {
		m[p] = selfChecked
	}
	// Search: Search.PrefixSearch and FuzzySearch check each context's
	// rule and leave out what the token may not read.
	writes("/v1/search", selfChecked)
	writes("/v1/search/fuzzy", selfChecked)
	// System: a forced GC and the summaries reconcile need management.
	writes("/v1/system/gc", management)
	writes("/v1/system/reconcile/summaries", management)

	// The operator's routes of issue 15 (http_operator_ops.go).
	writes("/v1/operator/raft/transfer-leadership", operatorWrite)
	m["GET /v1/operator/autopilot/configuration"], m["GET /v1/operator/autopilot/health"] = operatorRead, operatorRead
	writes("/v1/operator/autopilot/configuration", operatorWrite)
	m["GET /v1/agent/monitor"] = agentRead
	m["GET /v1/client/metadata"] = nodeRead
	writes("/v1/client/metadata", nodeWrite)
	// The web UI's files are public, as Nomad's (http_ui.go).
	m["GET /{$}"], m["GET /ui/"] = public, public
	return m
}()

// authorize wraps f with pattern's declared need (management when none is
// declared: s.undeclared lists those for the test). With ACLs off it is f.
func (s *httpServer) authorize(pattern string, f handlerFunc) handlerFunc {
	need, ok := routeNeeds[pattern]
	if !ok {
		s.undeclared = append(s.undeclared, pattern)
		need = management
	}
	if !s.ACLEnabled {
		return f
	}
	switch need.Kind {
	case needNone, needSelf, needObject, needMigrate:
		return f
	}
	return func(w http.ResponseWriter, r *http.Request) (any, error) {
		q, err := s.parseQuery(r)
		if err != nil {
			return nil, err
		}
		if need.Kind == needNamespace && q.Namespace == "*" {
			return f(w, r) // the list RPC keeps what the token may see
		}
		args := structs.ACLAuthorizeRequest{Kind: need.Kind, Capability: need.Cap, QueryOptions: q}
		args.Namespace, args.MinQueryIndex, args.AllowStale = q.Namespace, 0, true
		if err := s.RPC.RPC(structs.ACLAuthorizeRPC, &args, &structs.GenericResponse{}); err != nil {
			return nil, err
		}
		return f(w, r)
	}
}
