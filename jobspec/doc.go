// Package jobspec turns a Nomad-style HCL2 job file into a *structs.Job.
//
// It evaluates variables, locals and functions, keeps Nomad's runtime
// interpolations ("${attr.kernel.name}", "${NOMAD_PORT_db}") as literal text for
// the client, and reports every problem as a diagnostic naming file:line:col.
// Given the drivers' schemas (ParseConfig.Drivers, a drivers/schema.Lookup
// the caller injects: jobspec links no driver), it checks each task's driver
// and config block against them at file:line:col. It neither canonicalizes
// nor validates the job: callers run jobcheck.Check (or Canonicalize and
// Validate) themselves.
package jobspec
