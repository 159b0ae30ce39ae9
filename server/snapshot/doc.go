// Package snapshot is the operator snapshot archive: a gzipped tar of
// meta.json (the raft snapshot's metadata), state.bin (the FSM's state, as
// server/fsm persists it) and SHA256SUMS, as Nomad's and Consul's. Write
// builds one from a raft snapshot; Read checks an untrusted one under a
// decompressed-size cap, streaming the state to a temporary file; Open adds
// the state decode check and coded errors for the restore endpoint.
package snapshot
