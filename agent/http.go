package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/internal/shared"
	"github.com/nomadish/nomadish/structs"
)

// maxBodyBytes caps every request body; a larger one gets 413.
const maxBodyBytes = 8 << 20

// RPCer sends one RPC (to the in-process server or over TCP). Methods are the
// constants in structs/rpc.go; args and reply are pointers to the request and
// response structs there. Errors are *structs.CodedError for user errors.
type RPCer interface {
	RPC(method string, args any, reply any) error
}

// LogSource is the agent's own client, for GET /v1/client/fs/logs.
type LogSource interface {
	// NodeID is the ID of the node the client registered.
	NodeID() string
	// Logs writes a task's raw log bytes to w (see client.(*Client).Logs):
	// with follow it keeps writing until ctx ends or the task is dead and
	// drained. An unknown alloc is a *structs.CodedError 404.
	Logs(ctx context.Context, allocID, task, logType, origin string, offset int64, follow bool, w io.Writer) error
}

// JobParser turns an HCL job file into a job: name names the file in
// diagnostics, vars is the content of an HCL variables file (may be empty).
// Bad HCL is a *structs.CodedError 400 whose message names file:line:col.
type JobParser func(name string, body []byte, vars string) (*structs.Job, error)

// httpDeps is what the HTTP API needs from the rest of the agent.
type httpDeps struct {
	RPC RPCer
	// Logs is nil when this agent runs no client.
	Logs LogSource
	// Nodes reaches other nodes' clients (http_client_forward.go); nil:
	// requests for their allocations get 501.
	Nodes NodeDialer
	// Parse is nil when HCL parsing is not wired (POST /v1/jobs/parse -> 501).
	Parse JobParser
	// Self describes this agent for GET /v1/agent/self and /v1/agent/health.
	Self func() *agentInfo
	// Region is the agent's region: the default of ?region=.
	Region string
	// Cluster is nil when this agent runs no server (http_cluster.go).
	Cluster ClusterOps
	Logger  hclog.Logger
	// Origins refuses state-changing requests from other sites
	// (http_origin.go); nil allows every origin (tests).
	Origins *originPolicy
	// ACLEnabled is the agent's acl.enabled: routes check their declared
	// need first (http_acl_routes.go).
	ACLEnabled bool
	// Metrics is the agent's telemetry (http_metrics.go); nil answers the
	// Go runtime gauges alone (tests).
	Metrics MetricsSource
	// Events is the in-process server's event stream (http_events.go); nil
	// when this agent runs no server or EventsDisabled.
	Events         EventSubscriber
	EventsDisabled bool
	// Servers reaches the servers' event stream from a client-only agent
	// (http_events_forward.go); nil in a server agent.
	Servers ServerDialer
	// LogSinks is the agent's intercept logger for GET /v1/agent/monitor
	// (http_monitor.go); nil: monitoring is refused.
	LogSinks LogSinks
	// EnableDebug is the agent's enable_debug: /debug/pprof (http_debug.go).
	EnableDebug bool
	// UIEnabled is the agent's ui.enabled: the web UI at /ui/ (http_ui.go).
	UIEnabled bool
}

// httpServer routes Nomad's v1 API onto RPCs. It is an http.Handler; its
// handlers may run concurrently and keep no state of their own but the
// fields below.
type httpServer struct {
	httpDeps
	mux     *http.ServeMux
	answers shared.Cache // encoded list answers shared by concurrent readers (http_shared.go)
	// restoring is held by the one snapshot restore in progress
	// (http_operator_raft.go).
	restoring atomic.Bool
	// undeclared lists routes registered without an ACL need (set by
	// routes; TestEveryRouteDeclaresACL keeps it empty).
	undeclared []string
}

// handlerFunc is the shape of every endpoint: the value returned is encoded
// as JSON (nil writes nothing more); the error is mapped by wrap.
type handlerFunc func(w http.ResponseWriter, r *http.Request) (any, error)

func newHTTPServer(d httpDeps) *httpServer {
	if d.Logger == nil {
		d.Logger = hclog.NewNullLogger()
	}
	if d.Region == "" {
		d.Region = structs.DefaultRegion
	}
	s := &httpServer{httpDeps: d, mux: http.NewServeMux()}
	s.routes()
	return s
}

func (s *httpServer) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// routes registers every endpoint. GET patterns also serve HEAD; a path known
// for another method answers 405 (http.ServeMux does that).
func (s *httpServer) routes() {
	// Every route declares its ACL need (http_acl_routes.go).
	h := func(pattern string, f handlerFunc) { s.mux.HandleFunc(pattern, s.wrap(s.authorize(pattern, f))) }
	for _, m := range []string{"PUT", "POST"} {
		h(m+" /v1/jobs", s.jobsRegister)
		h(m+" /v1/jobs/parse", s.jobsParse)
		h(m+" /v1/job/{id}", s.jobRegisterNamed)
		h(m+" /v1/job/{id}/plan", s.jobPlan)
		h(m+" /v1/job/{id}/revert", s.jobRevert)
		h(m+" /v1/job/{id}/scale", s.jobScale)
		h(m+" /v1/job/{id}/stable", s.jobStable)
		h(m+" /v1/job/{id}/dispatch", s.jobDispatch)            // http_periodic.go
		h(m+" /v1/job/{id}/periodic/force", s.jobPeriodicForce) // http_periodic.go
		h(m+" /v1/operator/scheduler/configuration", s.schedulerConfigSet)
		h(m+" /v1/job/{id}/evaluate", s.jobEvaluate) // http_job_evaluate.go
	}
	h("GET /v1/jobs", s.jobsList)
	h("GET /v1/job/{id}", s.jobGet)
	h("DELETE /v1/job/{id}", s.jobDeregister)
	h("GET /v1/job/{id}/allocations", s.jobAllocations)
	h("GET /v1/job/{id}/evaluations", s.jobEvaluations)
	h("GET /v1/job/{id}/summary", s.jobSummary)
	h("GET /v1/scaling/policies", s.scalingPolicies)  // http_periodic.go
	h("GET /v1/scaling/policy/{id}", s.scalingPolicy) // http_periodic.go
	h("GET /v1/job/{id}/versions", s.jobVersions)
	h("GET /v1/job/{id}/submission", s.jobSubmission) // http_job_submission.go
	h("GET /v1/job/{id}/scale", s.jobScaleStatus)

	h("GET /v1/allocations", s.allocsList)
	h("GET /v1/allocation/{id}", s.allocGet)
	// Client endpoints reach another node's client through clientRoute
	// (http_client_forward.go).
	h("GET /v1/client/fs/logs/{alloc}", s.clientRoute("alloc", acl.NamespaceCapabilityReadLogs, s.allocLogs))
	s.fsRoutes(h) // http_fs.go
	s.fsStreamRoutes(h)
	h("GET /v1/client/allocation/{id}/exec", s.execRoute()) // http_alloc_exec_handshake.go
	h("GET /v1/client/allocation/{id}/stats", s.clientRoute("id", acl.NamespaceCapabilityReadJob, s.allocStats))
	h("GET /v1/client/allocation/{id}/checks", s.clientRoute("id", acl.NamespaceCapabilityReadJob, s.allocChecks))
	h("GET /v1/allocation/{id}/checks", s.clientRoute("id", acl.NamespaceCapabilityReadJob, s.allocChecks))
	h("GET /v1/client/allocation/{id}/snapshot", s.snapshotRoute(s.allocSnapshot)) // read-fs or a migrate token
	for _, m := range []string{"PUT", "POST"} {
		h(m+" /v1/client/allocation/{id}/signal", s.clientRoute("id", acl.NamespaceCapabilityAllocLifecycle, s.allocSignal))
		h(m+" /v1/client/allocation/{id}/restart", s.clientRoute("id", acl.NamespaceCapabilityAllocLifecycle, s.allocRestart))
		h(m+" /v1/allocation/{id}/stop", s.allocStop)
	}

	h("GET /v1/nodes", s.nodesList)
	h("GET /v1/node/{id}", s.nodeGet)
	h("GET /v1/node/{id}/{sub}", s.nodeSubresource) // http_node_pools.go: allocations
	s.nodePoolRoutes(h)                             // http_node_pools.go
	s.namespaceRoutes(h)                            // http_namespaces.go
	for _, m := range []string{"PUT", "POST"} {
		h(m+" /v1/node/{id}/drain", s.nodeDrain)
		h(m+" /v1/node/{id}/eligibility", s.nodeEligibility)
	}

	h("GET /v1/deployments", s.deploymentsList)
	h("GET /v1/deployment/{id}", s.deploymentGet)
	h("GET /v1/deployment/allocations/{id}", s.deploymentAllocations)
	h("GET /v1/job/{id}/deployments", s.jobDeployments)
	h("GET /v1/job/{id}/deployment", s.jobLatestDeployment)
	for _, m := range []string{"PUT", "POST"} {
		h(m+" /v1/deployment/promote/{id}", s.deploymentPromote)
		h(m+" /v1/deployment/fail/{id}", s.deploymentFail)
		h(m+" /v1/deployment/pause/{id}", s.deploymentPause)
	}

	h("GET /v1/evaluations", s.evalsList)
	h("GET /v1/evaluation/{id}", s.evalGet)
	h("GET /v1/evaluation/{id}/allocations", s.evalAllocations)
	h("DELETE /v1/evaluations", s.evalsDelete) // http_eval_delete.go

	h("GET /v1/status/leader", s.statusLeader)
	h("GET /v1/status/peers", s.statusPeers)
	h("GET /v1/regions", s.regions)

	h("GET /v1/agent/self", s.agentSelf)
	h("GET /v1/agent/members", s.agentMembers)
	s.clusterRoutes(h)  // http_cluster.go
	s.aclRoutes(h)      // http_acl.go
	s.varsRoutes(h)     // http_vars.go
	s.servicesRoutes(h) // http_services.go
	s.searchRoutes(h)   // http_search.go
	s.clientGCRoutes(h) // http_client_gc.go
	s.statsRoutes(h)    // http_client_stats.go
	s.systemRoutes(h)   // http_system.go
	s.eventRoutes(h)    // http_events.go
	s.opsRoutes(h)      // http_operator_ops.go
	s.debugRoutes(h)    // http_debug.go
	s.uiRoutes(h)       // http_ui.go
	h("GET /v1/agent/health", s.agentHealth)
	h("GET /v1/metrics", s.metrics)
	h("GET /v1/operator/scheduler/configuration", s.schedulerConfigGet)
	h("GET /v1/operator/raft/configuration", s.raftConfiguration)
	h("DELETE /v1/operator/raft/peer", s.raftPeerDelete)
	h("GET /v1/operator/snapshot", s.snapshotSave)
	for _, m := range []string{"PUT", "POST"} {
		p := m + " /v1/operator/snapshot"
		s.mux.HandleFunc(p, withSnapshotBody(s.wrap(s.authorize(p, s.snapshotRestore))))
	}
}

// withStatus is a handler result answered with a status other than 200 and
// a JSON body (e.g. GET /v1/agent/health when unhealthy).
type withStatus struct {
	Code int
	Body any
}

// wrap turns a handlerFunc into an http.HandlerFunc: it caps the request
// body, JSON-encodes the result (?pretty indents it), maps errors to a status
// with a plain-text body (what the official client puts into its error), and
// logs the request with its duration. A panic in f is recovered and
// answered 500 (recoverHTTP, http_recover.go); the agent keeps serving.
func (s *httpServer) wrap(f handlerFunc) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w := &trackingWriter{ResponseWriter: rw}
		defer s.recoverHTTP(w, r, start)
		r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		var obj any
		err := s.checkOrigin(r) // http_origin.go: 403 for a foreign Origin (checked once: http_client_forward.go)
		if err == nil {
			obj, err = f(w, r)
		}
		code := http.StatusOK
		if err != nil {
			var msg string
			code, msg = errorStatus(err)
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(code)
			_, _ = io.WriteString(w, msg)
		} else if obj != nil {
			if ws, ok := obj.(withStatus); ok {
				code, obj = ws.Code, ws.Body
			}
			s.writeJSON(w, r, code, obj)
		}
		s.logRequest(r, code, err, time.Since(start))
	}
}

func (s *httpServer) writeJSON(w http.ResponseWriter, r *http.Request, code int, obj any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	if _, ok := r.URL.Query()["pretty"]; ok {
		enc.SetIndent("", "    ")
	}
	if err := enc.Encode(obj); err != nil {
		s.Logger.Error("encoding response", "path", r.URL.Path, "error", err)
	}
}

func (s *httpServer) logRequest(r *http.Request, code int, err error, d time.Duration) {
	args := []any{"method", r.Method, "path", r.URL.Path, "status", code, "duration", d}
	switch {
	case code >= 500 && code != http.StatusNotImplemented:
		s.Logger.Error("request failed", append(args, "error", err)...)
	case err != nil:
		s.Logger.Debug("request rejected", append(args, "error", err)...)
	default:
		s.Logger.Trace("request complete", args...)
	}
}

// errorStatus maps an error to an HTTP status and a message: coded errors
// keep their code (when it is an HTTP error status), an oversized body is
// 413, anything else is 500.
func errorStatus(err error) (int, string) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("request body too large: the limit is %d bytes", mbe.Limit)
	}
	code, msg := structs.ErrorCode(err)
	if code == structs.ErrCodeNoLeader {
		code = http.StatusInternalServerError // as Nomad: 500 "No cluster leader"
	}
	if code < 400 || code > 599 {
		code = http.StatusInternalServerError
	}
	return code, msg
}

// parseQuery reads the read options every GET shares: region, namespace,
// stale, prefix and the blocking-query pair index/wait (wait is a Go
// duration such as "5s" or "5000ms", as the official client sends it).
func (s *httpServer) parseQuery(r *http.Request) (structs.QueryOptions, error) {
	q := r.URL.Query()
	opts := structs.QueryOptions{
		Region:    q.Get("region"),
		Namespace: q.Get("namespace"),
		Prefix:    q.Get("prefix"),
		AuthToken: requestToken(r),
	}
	_, opts.AllowStale = q["stale"]
	if opts.Region == "" {
		opts.Region = s.Region
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if v := q.Get("index"); v != "" {
		idx, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return opts, badRequest("Invalid index %q: %v", v, err)
		}
		opts.MinQueryIndex = idx
	}
	if v := q.Get("wait"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return opts, badRequest("Invalid wait time %q", v)
		}
		opts.MaxQueryTime = d
	}
	if err := parsePaging(r, &opts); err != nil { // http_paging.go
		return opts, err
	}
	return opts, nil
}

// parseWrite reads the write options: region and namespace.
func (s *httpServer) parseWrite(r *http.Request) structs.WriteRequest {
	q := r.URL.Query()
	wr := structs.WriteRequest{Region: q.Get("region"), Namespace: q.Get("namespace"), AuthToken: requestToken(r)}
	if wr.Region == "" {
		wr.Region = s.Region
	}
	if wr.Namespace == "" {
		wr.Namespace = "default"
	}
	return wr
}

// requestToken is the request's ACL token secret, as Nomad reads it: the
// X-Nomad-Token header, else an "Authorization: Bearer <secret>" header.
func requestToken(r *http.Request) string {
	if t := r.Header.Get("X-Nomad-Token"); t != "" {
		return t
	}
	if a := r.Header.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "Bearer ") {
		return strings.TrimSpace(a[7:])
	}
	return ""
}

// parseBool reads an optional boolean query parameter.
func parseBool(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, badRequest("Failed to parse value of %q (%v): %v", name, v, err)
	}
	return b, nil
}

// setMeta writes the blocking-query headers of a read.
func setMeta(w http.ResponseWriter, m *structs.QueryMeta) {
	setIndex(w, m.Index)
	w.Header().Set("X-Nomad-KnownLeader", strconv.FormatBool(m.KnownLeader))
	w.Header().Set("X-Nomad-LastContact", strconv.FormatInt(m.LastContact.Milliseconds(), 10))
	if m.NextToken != "" {
		w.Header().Set("X-Nomad-NextToken", m.NextToken)
	}
}

// setIndex writes X-Nomad-Index (the index of a write, or of a read).
func setIndex(w http.ResponseWriter, index uint64) {
	w.Header().Set("X-Nomad-Index", strconv.FormatUint(index, 10))
}
