// Package endpoints holds the server's RPC endpoints, one file set per
// domain (job*, node*, alloc*, eval, deployment, operator*, status), each
// a receiver given the narrow Deps (state reader, raft apply, leadership,
// heartbeat timers, cluster view, clock, logger, limits) instead of the
// server; blocking queries, job limits and node authentication live beside
// them. New returns the one registration list the server's RPC dispatch
// serves (method names "Job.Register", ...): a new domain is its files plus
// one line there.
package endpoints
