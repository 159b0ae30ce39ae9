package endpoints

import (
	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/structs"
)

// allowNamespaceOp resolves secret and checks that its ACL grants op in
// namespace ns. nil: allowed (always, with ACLs off); otherwise the token
// error (403) or ErrPermissionDenied, logged with the accessor, never the
// secret. The caller must return before changing anything.
func (d *Deps) allowNamespaceOp(secret, ns, op string) error {
	a, token, err := d.ResolveToken(secret)
	if err != nil {
		d.Logger.Warn("ACL: request refused", "namespace", ns, "need", op, "error", err)
		return err
	}
	if a.AllowNamespaceOperation(ns, op) {
		return nil
	}
	d.Logger.Warn("ACL: permission denied", "accessor", token.AccessorID, "namespace", ns, "need", op)
	return structs.ErrPermissionDenied
}

// namespaceFilter resolves secret for a read over namespace ns ("*": all).
// For one namespace it refuses (as allowNamespaceOp) without op there; for
// "*" it returns the filter of namespaces whose objects the caller may
// see (nil: everything, ACLs off or a management token).
func (d *Deps) namespaceFilter(secret, ns, op string) (func(string) bool, error) {
	if ns != "*" {
		return nil, d.allowNamespaceOp(secret, ns, op)
	}
	a, _, err := d.ResolveToken(secret)
	if err != nil {
		return nil, err
	}
	if a.IsManagement() {
		return nil, nil
	}
	return func(n string) bool { return a.AllowNamespaceOperation(n, op) }, nil
}

// filterJobStubs is the stubs keep allows (in is shared: never modified).
func filterJobStubs(in []*structs.JobListStub, keep func(string) bool) []*structs.JobListStub {
	if keep == nil {
		return in
	}
	out := make([]*structs.JobListStub, 0, len(in))
	for _, j := range in {
		if keep(j.Namespace) {
			out = append(out, j)
		}
	}
	return out
}

// Capabilities the Job endpoints need (Nomad's).
const (
	capSubmitJob = acl.NamespaceCapabilitySubmitJob
	capReadJob   = acl.NamespaceCapabilityReadJob
	capListJobs  = acl.NamespaceCapabilityListJobs
	// Scale needs scale-job (write and scale policies grant it), scale
	// status read-job-scaling, as in Nomad.
	capScaleJob       = acl.NamespaceCapabilityScaleJob
	capReadJobScaling = acl.NamespaceCapabilityReadJobScaling
	// Dispatch needs dispatch-job; the scaling policies list and read need
	// their own capabilities (scaling.go).
	capDispatchJob         = acl.NamespaceCapabilityDispatchJob
	capListScalingPolicies = acl.NamespaceCapabilityListScalingPolicies
	capReadScalingPolicy   = acl.NamespaceCapabilityReadScalingPolicy
)

// resolveACL resolves secret for a check made later against objects the
// caller does not know the namespace of yet (by-ID reads). A nil ACL
// allows everything.
func (d *Deps) resolveACL(secret string) (*acl.ACL, string, error) {
	a, token, err := d.ResolveToken(secret)
	if err != nil {
		d.Logger.Warn("ACL: request refused", "error", err)
		return nil, "", err
	}
	accessor := ""
	if token != nil {
		accessor = token.AccessorID
	}
	return a, accessor, nil
}

// denied logs a refusal (with the accessor, never the secret) and returns
// ErrPermissionDenied.
func (d *Deps) denied(accessor, ns, op string) error {
	d.Logger.Warn("ACL: permission denied", "accessor", accessor, "namespace", ns, "need", op)
	return structs.ErrPermissionDenied
}

// allowLevel resolves secret and checks a node, agent or operator level
// with check (an acl.ACL method such as (*acl.ACL).AllowNodeRead).
func (d *Deps) allowLevel(secret, what string, check func(*acl.ACL) bool) error {
	a, accessor, err := d.resolveACL(secret)
	if err != nil {
		return err
	}
	if !check(a) {
		return d.denied(accessor, "", what)
	}
	return nil
}

// unisolatedDrivers run tasks as processes on the node itself: exec into
// them needs alloc-node-exec besides alloc-exec, as in Nomad.
var unisolatedDrivers = map[string]bool{"raw_exec": true}

// AllowAllocOperation answers whether the request's token may use a
// client endpoint of an allocation: args.Capability in the allocation's
// namespace (read-logs, read-fs, alloc-exec, alloc-lifecycle, read-job),
// and for alloc-exec into a task of an unisolated driver (raw_exec; every
// task of the group when args.Task is empty) alloc-node-exec too. The
// agent calls it before serving or forwarding /v1/client/ requests. An
// unknown allocation is allowed here (the client answers 404).
func (e *ACL) AllowAllocOperation(args *structs.ACLAllowAllocRequest, reply *structs.GenericResponse) error {
	a, accessor, err := e.d.resolveACL(args.AuthToken)
	if err != nil {
		return err
	}
	if a.IsManagement() {
		return nil
	}
	alloc, err := e.d.State().Snapshot().AllocByID(nil, args.AllocID)
	if err != nil || alloc == nil {
		return err
	}
	if !a.AllowNamespaceOperation(alloc.Namespace, args.Capability) {
		return e.d.denied(accessor, alloc.Namespace, args.Capability)
	}
	if args.Capability == acl.NamespaceCapabilityAllocExec && execNeedsNode(alloc, args.Task) &&
		!a.AllowNamespaceOperation(alloc.Namespace, acl.NamespaceCapabilityAllocNodeExec) {
		return e.d.denied(accessor, alloc.Namespace, acl.NamespaceCapabilityAllocNodeExec)
	}
	return nil
}

// execNeedsNode reports whether exec into task (every task of the group
// for "") reaches an unisolated driver.
func execNeedsNode(alloc *structs.Allocation, task string) bool {
	if alloc.Job == nil {
		return true // unknown driver: be strict
	}
	tg := alloc.Job.LookupTaskGroup(alloc.TaskGroup)
	if tg == nil {
		return true
	}
	for _, t := range tg.Tasks {
		if (task == "" || t.Name == task) && unisolatedDrivers[t.Driver] {
			return true
		}
	}
	return false
}

// listNamespace is the namespace a list request covers: "" means all.
func listNamespace(ns string) string {
	if ns == "" {
		return "*"
	}
	return ns
}

// allowedAllocs is allocs whose namespace a allows read-job in (all when
// a is nil or management).
func allowedAllocs(a *acl.ACL, allocs []*structs.Allocation) []*structs.Allocation {
	if a.IsManagement() {
		return allocs
	}
	out := make([]*structs.Allocation, 0, len(allocs))
	for _, x := range allocs {
		if a.AllowNamespaceOperation(x.Namespace, capReadJob) {
			out = append(out, x)
		}
	}
	return out
}

// Authorize answers an agent's check of an HTTP route's declared need
// (agent/http_acl_routes.go) for the request's token: nil when met (always
// with ACLs off), else the token error or ErrPermissionDenied (403).
func (e *ACL) Authorize(args *structs.ACLAuthorizeRequest, reply *structs.GenericResponse) error {
	if args.Kind == "namespace" {
		return e.d.allowNamespaceOp(args.AuthToken, namespaceOf(args.Namespace), args.Capability)
	}
	write := args.Capability == "write"
	var check func(*acl.ACL) bool
	switch args.Kind {
	case "node":
		check = (*acl.ACL).AllowNodeRead
		if write {
			check = (*acl.ACL).AllowNodeWrite
		}
	case "agent":
		check = (*acl.ACL).AllowAgentRead
		if write {
			check = (*acl.ACL).AllowAgentWrite
		}
	case "operator":
		check = (*acl.ACL).AllowOperatorRead
		if write {
			check = (*acl.ACL).AllowOperatorWrite
		}
	case "management":
		check = (*acl.ACL).IsManagement
	default:
		return structs.NewCodedError(structs.ErrCodeBadRequest, "unknown ACL need %q", args.Kind)
	}
	return e.d.allowLevel(args.AuthToken, args.Kind+" "+args.Capability, check)
}
