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
)
