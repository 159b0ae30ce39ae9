package agent

import (
	"fmt"
	"os"

	"github.com/nomadish/nomadish/internal/telemetry"
)

// startTelemetry attaches this agent's metrics sinks (the telemetry block)
// to the process's go-metrics hub; Shutdown closes them.
func (a *Agent) startTelemetry() error {
	t := a.cfg.Telemetry
	host := ""
	if !t.DisableHostname {
		if t.UseNodeName {
			host = a.cfg.Name
		} else if h, err := os.Hostname(); err == nil {
			host = h
		}
	}
	tel, err := telemetry.New(telemetry.Config{
		Hostname: host, CollectionInterval: t.CollectionInterval, PrometheusMetrics: t.PrometheusMetrics,
		StatsdAddress: t.StatsdAddress, StatsiteAddress: t.StatsiteAddress,
		FilterDefault: t.FilterDefault, PrefixFilter: t.PrefixFilter,
	})
	if err != nil {
		return fmt.Errorf("agent: starting telemetry: %w", err)
	}
	a.telemetry = tel
	return nil
}
