package config

import (
	"net"
	"strings"
	"time"
)

// Telemetry is the telemetry block, with Nomad's names and defaults: how
// often gauges are sampled, where metrics go (the in-memory sink behind
// /v1/metrics always; Prometheus, statsd and statsite when asked) and which
// ones are kept.
type Telemetry struct {
	// CollectionInterval is how often the agent samples its gauges (the Go
	// runtime, the leader's job summaries, the client's host and
	// allocation usage) and the in-memory sink's interval.
	CollectionInterval time.Duration
	// DisableHostname: gauges are not prefixed with the hostname.
	DisableHostname bool
	// UseNodeName: the node's name replaces the hostname in that prefix.
	UseNodeName bool
	// PrometheusMetrics serves /v1/metrics?format=prometheus.
	PrometheusMetrics bool
	// PublishAllocationMetrics emits nomad.client.allocs.* per task.
	PublishAllocationMetrics bool
	// PublishNodeMetrics emits nomad.client.host.*.
	PublishNodeMetrics bool
	// StatsdAddress and StatsiteAddress are "host:port" sinks (UDP, TCP).
	StatsdAddress   string
	StatsiteAddress string
	// FilterDefault keeps metrics no prefix_filter rule names (true), or
	// drops them (false).
	FilterDefault bool
	// PrefixFilter rules: "+nomad.raft" keeps, "-nomad.rpc" drops.
	PrefixFilter []string
	// DisableDispatchedJobSummaryMetrics: the leader publishes no job
	// summary gauges for dispatched jobs (many, short-lived).
	DisableDispatchedJobSummaryMetrics bool
}

// DefaultTelemetry returns Nomad's defaults: 1 s collection, hostname
// prefix on, only the in-memory sink, every metric kept.
func DefaultTelemetry() Telemetry {
	return Telemetry{CollectionInterval: time.Second, FilterDefault: true}
}

// telemetryFields are the telemetry block's keys.
func (c *Config) telemetryFields() []field {
	t := &c.Telemetry
	return []field{
		{"telemetry.collection_interval", &t.CollectionInterval},
		{"telemetry.disable_hostname", &t.DisableHostname},
		{"telemetry.use_node_name", &t.UseNodeName},
		{"telemetry.prometheus_metrics", &t.PrometheusMetrics},
		{"telemetry.publish_allocation_metrics", &t.PublishAllocationMetrics},
		{"telemetry.publish_node_metrics", &t.PublishNodeMetrics},
		{"telemetry.statsd_address", &t.StatsdAddress},
		{"telemetry.statsite_address", &t.StatsiteAddress},
		{"telemetry.filter_default", &t.FilterDefault},
		{"telemetry.prefix_filter", &t.PrefixFilter},
		{"telemetry.disable_dispatched_job_summary_metrics", &t.DisableDispatchedJobSummaryMetrics},
	}
}

// validateTelemetry checks the telemetry block: a positive
// collection_interval, host:port sink addresses, and prefix_filter rules
// that start with + or - and name something.
func (c *Config) validateTelemetry(bad func(key, format string, args ...any)) {
	t := c.Telemetry
	if t.CollectionInterval <= 0 {
		bad("telemetry.collection_interval", "must be positive, got %v", t.CollectionInterval)
	}
	for key, addr := range map[string]string{"telemetry.statsd_address": t.StatsdAddress, "telemetry.statsite_address": t.StatsiteAddress} {
		if addr == "" {
			continue
		}
		if host, port, err := net.SplitHostPort(addr); err != nil || host == "" || port == "" {
			bad(key, "must be host:port, got %q", addr)
		}
	}
	for _, rule := range t.PrefixFilter {
		if len(rule) < 2 || (rule[0] != '+' && rule[0] != '-') || strings.TrimSpace(rule[1:]) == "" {
			bad("telemetry.prefix_filter", "rule %q must be \"+<prefix>\" (keep) or \"-<prefix>\" (drop)", rule)
		}
	}
}
