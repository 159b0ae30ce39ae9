package agent

import (
	"net/http"
	"strings"
)

// routeScope is what an HTTP route's ACL requirement is about, in Nomad's
// policy language (issue 12 enforces these on every request; the table is
// kept complete now so no route can be added without saying what it
// needs).
type routeScope string

const (
	scopeNone       routeScope = "none"       // anyone: health, status, leader
	scopeNamespace  routeScope = "namespace"  // a namespace capability (list-jobs, submit-job, read-logs...)
	scopeNode       routeScope = "node"       // node: read or write
	scopeAgent      routeScope = "agent"      // agent: read or write
	scopeOperator   routeScope = "operator"   // operator: read or write
	scopeNodePool   routeScope = "node_pool"  // node_pool: read, write or delete
	scopeManagement routeScope = "management" // a management token only
)

// routeCap is the capability one route needs: a namespace capability
// (Nomad's names: "list-jobs", "read-job", "submit-job", "read-logs",
// "read-fs", "alloc-exec", "alloc-lifecycle", "scale-job",
// "read-job-scaling", "parse-job") or, for the other scopes, "read" or
// "write".
type routeCap struct {
	Scope routeScope
	Cap   string
}

// Namespace, node, agent and operator requirements, named as Nomad's ACL
// docs name them.
var (
	capNone       = routeCap{scopeNone, ""}
	capManagement = routeCap{scopeManagement, ""}
	nodeRead      = routeCap{scopeNode, "read"}
	nodeWrite     = routeCap{scopeNode, "write"}
	agentRead     = routeCap{scopeAgent, "read"}
	agentWrite    = routeCap{scopeAgent, "write"}
	operatorRead  = routeCap{scopeOperator, "read"}
	operatorWrite = routeCap{scopeOperator, "write"}
	poolRead      = routeCap{scopeNodePool, "read"}
	poolWrite     = routeCap{scopeNodePool, "write"}
	poolDelete    = routeCap{scopeNodePool, "delete"}
	// nsAny is any capability on the namespace (reading a namespace, as
	// Nomad; lists are filtered to the namespaces the token can use).
	nsAny = nsCap("any")
)

func nsCap(c string) routeCap { return routeCap{scopeNamespace, c} }

// routeCaps is the ACL requirement of every route the agent serves, by its
// ServeMux pattern (TestEveryRouteDeclaresACapability fails for a route
// missing here, and for an entry no route uses). `alloc exec` into a task
// of an unisolated driver (raw_exec) also needs alloc-node-exec, decided
// per request once the task's driver is known.
var routeCaps = map[string]routeCap{
	"/v1/jobs PUT":                             nsCap("submit-job"),
	"/v1/jobs/parse PUT":                       nsCap("parse-job"),
	"/v1/job/{id} PUT":                         nsCap("submit-job"),
	"/v1/job/{id}/plan PUT":                    nsCap("submit-job"),
	"/v1/job/{id}/revert PUT":                  nsCap("submit-job"),
	"/v1/job/{id}/scale PUT":                   nsCap("scale-job"),
	"/v1/job/{id}/stable PUT":                  nsCap("submit-job"),
	"/v1/operator/scheduler/configuration PUT": operatorWrite,
	"/v1/jobs GET":                             nsCap("list-jobs"),
	"/v1/job/{id} GET":                         nsCap("read-job"),
	"/v1/job/{id} DELETE":                      nsCap("submit-job"),
	"/v1/job/{id}/allocations GET":             nsCap("read-job"),
	"/v1/job/{id}/evaluations GET":             nsCap("read-job"),
	"/v1/job/{id}/summary GET":                 nsCap("read-job"),
	"/v1/job/{id}/versions GET":                nsCap("read-job"),
	"/v1/job/{id}/scale GET":                   nsCap("read-job-scaling"),
	"/v1/allocations GET":                      nsCap("read-job"),
	"/v1/allocation/{id} GET":                  nsCap("read-job"),
	"/v1/client/fs/logs/{alloc} GET":           nsCap("read-logs"),
	"/v1/client/fs/ls/{alloc} GET":             nsCap("read-fs"),
	"/v1/client/fs/stat/{alloc} GET":           nsCap("read-fs"),
	"/v1/client/fs/cat/{alloc} GET":            nsCap("read-fs"),
	"/v1/client/fs/readat/{alloc} GET":         nsCap("read-fs"),
	"/v1/client/allocation/{id}/exec GET":      nsCap("alloc-exec"),
	"/v1/client/allocation/{id}/stats GET":     nsCap("read-job"),
	"/v1/client/allocation/{id}/signal PUT":    nsCap("alloc-lifecycle"),
	"/v1/client/allocation/{id}/restart PUT":   nsCap("alloc-lifecycle"),
	"/v1/allocation/{id}/stop PUT":             nsCap("alloc-lifecycle"),
	"/v1/nodes GET":                            nodeRead,
	"/v1/node/{id} GET":                        nodeRead,
	"/v1/node/{id}/{sub} GET":                  nodeRead, // allocations
	"/v1/node/pools GET":                       poolRead,
	"/v1/node/pools PUT":                       poolWrite,
	"/v1/node/pool/{name} GET":                 poolRead,
	"/v1/node/pool/{name} DELETE":              poolDelete,
	"/v1/node/pool/{name}/jobs GET":            poolRead, // and list-jobs on each job's namespace
	"/v1/node/pool/{name}/nodes GET":           poolRead, // and node read
	"/v1/namespaces GET":                       capNone,  // filtered to the namespaces the token can use
	"/v1/namespace/{name} GET":                 nsAny,
	"/v1/namespace PUT":                        capManagement,
	"/v1/namespace/{name} PUT":                 capManagement,
	"/v1/namespace/{name} DELETE":              capManagement,
	"/v1/node/{id}/drain PUT":                  nodeWrite,
	"/v1/node/{id}/eligibility PUT":            nodeWrite,
	"/v1/deployments GET":                      nsCap("read-job"),
	"/v1/deployment/{id} GET":                  nsCap("read-job"),
	"/v1/deployment/allocations/{id} GET":      nsCap("read-job"),
	"/v1/job/{id}/deployments GET":             nsCap("read-job"),
	"/v1/job/{id}/deployment GET":              nsCap("read-job"),
	"/v1/deployment/promote/{id} PUT":          nsCap("submit-job"),
	"/v1/deployment/fail/{id} PUT":             nsCap("submit-job"),
	"/v1/deployment/pause/{id} PUT":            nsCap("submit-job"),
	"/v1/evaluations GET":                      nsCap("read-job"),
	"/v1/evaluation/{id} GET":                  nsCap("read-job"),
	"/v1/evaluation/{id}/allocations GET":      nsCap("read-job"),
	"/v1/status/leader GET":                    capNone,
	"/v1/status/peers GET":                     capNone,
	"/v1/regions GET":                          capNone,
	"/v1/agent/self GET":                       agentRead,
	"/v1/agent/members GET":                    nodeRead,
	"/v1/agent/join PUT":                       agentWrite,
	"/v1/agent/force-leave PUT":                agentWrite,
	"/v1/agent/keyring/{op} PUT":               agentWrite,
	"/v1/agent/keyring/list GET":               agentRead,
	"/v1/agent/health GET":                     capNone,
	"/v1/metrics GET":                          capNone,
	"/v1/operator/scheduler/configuration GET": operatorRead,
	"/v1/operator/raft/configuration GET":      operatorRead,
	"/v1/operator/raft/peer DELETE":            operatorWrite,
	"/v1/operator/snapshot GET":                capManagement,
	"/v1/operator/snapshot PUT":                capManagement,
}

// routeKey is a pattern's entry in routeCaps: the path, then the method,
// with POST folded into PUT (every write route takes both, as Nomad's).
func routeKey(pattern string) string {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		return pattern
	}
	if method == http.MethodPost {
		method = http.MethodPut
	}
	return path + " " + method
}

// handle registers a route on the mux and remembers its pattern (for the
// route table test and, with issue 12, the check of each request against
// routeCaps).
func (s *httpServer) handle(pattern string, h http.Handler) {
	s.patterns = append(s.patterns, pattern)
	s.mux.Handle(pattern, h)
}
