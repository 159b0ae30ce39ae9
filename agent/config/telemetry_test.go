package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func writeTelemetry(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.hcl")
	if err := os.WriteFile(path, []byte("data_dir = \"/d\"\ntelemetry {\n"+body+"}\nserver {\n  enabled = true\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The telemetry block: Nomad's defaults, -dev's, every key parsed and
// merged, and bad values named with their place.
func TestTelemetryBlock(t *testing.T) {
	def := DefaultConfig().Telemetry
	if def.CollectionInterval != time.Second || !def.FilterDefault || def.DisableHostname || def.PrometheusMetrics || def.PublishNodeMetrics || def.PublishAllocationMetrics {
		t.Fatalf("defaults: %+v", def)
	}
	if dev := DevConfig().Telemetry; !dev.PrometheusMetrics || !dev.PublishNodeMetrics || !dev.PublishAllocationMetrics {
		t.Fatalf("dev: %+v", dev)
	}
	file, err := LoadFile(writeTelemetry(t, `  collection_interval = "5s"
  disable_hostname = true
  use_node_name = true
  prometheus_metrics = true
  publish_allocation_metrics = true
  publish_node_metrics = true
  statsd_address = "127.0.0.1:8125"
  statsite_address = "stats:8125"
  filter_default = false
  prefix_filter = ["+nomad.raft", "-nomad.rpc"]
  disable_dispatched_job_summary_metrics = true
`))
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig().Merge(file)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := Telemetry{CollectionInterval: 5 * time.Second, DisableHostname: true, UseNodeName: true, PrometheusMetrics: true,
		PublishAllocationMetrics: true, PublishNodeMetrics: true, StatsdAddress: "127.0.0.1:8125", StatsiteAddress: "stats:8125",
		PrefixFilter: []string{"+nomad.raft", "-nomad.rpc"}, DisableDispatchedJobSummaryMetrics: true}
	got := c.Telemetry
	if !slices.Equal(got.PrefixFilter, want.PrefixFilter) {
		t.Fatalf("prefix_filter: %v", got.PrefixFilter)
	}
	got.PrefixFilter, want.PrefixFilter = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("telemetry:\n%+v\nwant\n%+v", got, want)
	}
	// Copy does not share the filter list.
	cp := c.Copy()
	cp.Telemetry.PrefixFilter[0] = "+x"
	if c.Telemetry.PrefixFilter[0] != "+nomad.raft" {
		t.Fatal("Copy shares prefix_filter")
	}

	bad := writeTelemetry(t, "  collection_interval = \"0s\"\n  statsd_address = \"nohost\"\n  prefix_filter = [\"nomad.raft\"]\n")
	if file, err = LoadFile(bad); err != nil {
		t.Fatal(err)
	}
	err = DefaultConfig().Merge(file).Validate()
	for _, want := range []string{
		bad + ":3:3: telemetry.collection_interval: must be positive, got 0s",
		bad + ":4:3: telemetry.statsd_address: must be host:port, got \"nohost\"",
		bad + ":5:3: telemetry.prefix_filter: rule \"nomad.raft\" must be",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error:\n%v\nwant a line:\n%s", err, want)
		}
	}
	if _, err := LoadFile(writeTelemetry(t, "  prometheus_metric = true\n")); err == nil || !strings.Contains(err.Error(), "prometheus_metrics") {
		t.Fatalf("misspelt key: %v", err)
	}
}
