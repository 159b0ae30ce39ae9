package telemetry

import (
	"strings"

	gometrics "github.com/hashicorp/go-metrics"
)

// agentSink is one agent's view of the hub: its prefix filter and hostname
// prefix applied, then its own sinks.
type agentSink struct {
	host          string // inserted after the service name in gauge keys; "" for none
	filterDefault bool
	rules         []rule // prefix_filter, longest prefix wins
	out           gometrics.FanoutSink
}

type rule struct {
	prefix string
	allow  bool
}

func parseRules(filter []string) []rule {
	var out []rule
	for _, r := range filter {
		if len(r) < 2 {
			continue
		}
		out = append(out, rule{prefix: r[1:], allow: r[0] == '+'})
	}
	return out
}

// allowed applies prefix_filter to key ("nomad.raft.apply").
func (a *agentSink) allowed(key []string) bool {
	if len(a.rules) == 0 {
		return true
	}
	name := strings.Join(key, ".")
	best, ok := -1, a.filterDefault
	for _, r := range a.rules {
		if len(r.prefix) > best && strings.HasPrefix(name, r.prefix) {
			best, ok = len(r.prefix), r.allow
		}
	}
	return ok
}

// gaugeKey inserts the hostname after the service name, as go-metrics'
// EnableHostname does: nomad.<host>.nomad.broker.total_ready.
func (a *agentSink) gaugeKey(key []string) []string {
	if a.host == "" || len(key) == 0 {
		return key
	}
	out := make([]string, 0, len(key)+1)
	return append(append(append(out, key[0]), a.host), key[1:]...)
}

func (a *agentSink) SetGauge(key []string, val float32) { a.SetGaugeWithLabels(key, val, nil) }
func (a *agentSink) SetGaugeWithLabels(key []string, val float32, labels []gometrics.Label) {
	if a.allowed(key) {
		a.out.SetGaugeWithLabels(a.gaugeKey(key), val, labels)
	}
}
func (a *agentSink) EmitKey(key []string, val float32) {
	if a.allowed(key) {
		a.out.EmitKey(key, val)
	}
}
func (a *agentSink) IncrCounter(key []string, val float32) { a.IncrCounterWithLabels(key, val, nil) }
func (a *agentSink) IncrCounterWithLabels(key []string, val float32, labels []gometrics.Label) {
	if a.allowed(key) {
		a.out.IncrCounterWithLabels(key, val, labels)
	}
}
func (a *agentSink) AddSample(key []string, val float32) { a.AddSampleWithLabels(key, val, nil) }
func (a *agentSink) AddSampleWithLabels(key []string, val float32, labels []gometrics.Label) {
	if a.allowed(key) {
		a.out.AddSampleWithLabels(key, val, labels)
	}
}
