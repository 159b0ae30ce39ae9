// Package structs holds nomadish's data model: jobs, nodes, allocations,
// evaluations, plans and the RPC messages that carry them. Field names follow
// HashiCorp Nomad's so that the JSON of the HTTP API matches the official
// github.com/hashicorp/nomad/api client. The package is pure: no I/O.
package structs
