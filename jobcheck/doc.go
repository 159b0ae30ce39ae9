// Package jobcheck is the one preparation of a submitted job: copy it,
// give it the request's namespace, canonicalize it, validate it and check
// each task's driver and driver config against the drivers' schemas
// (drivers/schema.Lookup, injected: this package links no driver). The
// server's Job.Register and Job.Plan call Prepare whatever the job came as
// (HCL through jobspec, JSON through the HTTP API, msgpack over RPC);
// `nomadish job validate` calls Check on the job it parsed.
package jobcheck
