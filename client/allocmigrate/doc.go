// Package allocmigrate moves an allocation's sticky data between nodes
// (ephemeral_disk { migrate = true }): Snapshot writes the alloc/data
// directory and each task's local/ directory of an allocation directory as
// a tar stream (what GET /v1/client/allocation/:id/snapshot serves, as
// Nomad's), Restore extracts such a stream into a new allocation directory
// without ever writing outside those directories.
package allocmigrate
