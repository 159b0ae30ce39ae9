// Package telemetry is the agent's metrics plumbing: go-metrics' process-wide
// globals (hashicorp/go-metrics for nomadish's own metrics, armon/go-metrics
// for what raft, serf and memberlist emit through go-metrics/compat) are
// pointed once per process at a hub, and each agent attaches its own sinks
// (the in-memory sink behind /v1/metrics, a Prometheus registry, statsd,
// statsite) to the hub while it runs. Code emitting metrics calls
// go-metrics' package functions (metrics.IncrCounter, MeasureSince…) with
// Nomad's names, without the "nomad" service prefix, which the hub's
// go-metrics configuration adds.
//
// Several agents in one process (tests) each see every agent's metrics; one
// agent per process (production) sees its own.
package telemetry
