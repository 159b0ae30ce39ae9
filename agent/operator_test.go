package agent

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// The official client reads and writes the scheduler configuration:
// preemption is on for every job type by default, a write is seen by the
// next read, a stale check-and-set is refused, a bad algorithm is a 400.
func TestOfficialClientSchedulerConfiguration(t *testing.T) {
	_, c := devAgent(t)
	op := c.Operator()

	resp, _, err := op.SchedulerGetConfiguration(nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := resp.SchedulerConfig
	p := cfg.PreemptionConfig
	if cfg.SchedulerAlgorithm != api.SchedulerAlgorithmBinpack || !p.ServiceSchedulerEnabled || !p.BatchSchedulerEnabled ||
		!p.SystemSchedulerEnabled || !p.SysBatchSchedulerEnabled {
		t.Fatalf("default configuration %+v", cfg)
	}

	cfg.SchedulerAlgorithm = api.SchedulerAlgorithmSpread
	cfg.PreemptionConfig.BatchSchedulerEnabled = false
	set, wm, err := op.SchedulerSetConfiguration(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !set.Updated || wm.LastIndex == 0 {
		t.Fatalf("set: %+v, index %d", set, wm.LastIndex)
	}
	resp, _, err = op.SchedulerGetConfiguration(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := resp.SchedulerConfig
	if got.SchedulerAlgorithm != api.SchedulerAlgorithmSpread || got.PreemptionConfig.BatchSchedulerEnabled ||
		!got.PreemptionConfig.ServiceSchedulerEnabled || got.ModifyIndex != wm.LastIndex {
		t.Fatalf("after set: %+v (write index %d)", got, wm.LastIndex)
	}

	stale := *got
	stale.ModifyIndex = got.ModifyIndex - 1
	cas, _, err := op.SchedulerCASConfiguration(&stale, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cas.Updated {
		t.Fatal("a check-and-set with a stale index was applied")
	}
	fresh := *got
	fresh.PreemptionConfig.ServiceSchedulerEnabled = false
	if cas, _, err = op.SchedulerCASConfiguration(&fresh, nil); err != nil || !cas.Updated {
		t.Fatalf("check-and-set at the current index: %+v, %v", cas, err)
	}

	bad := *got
	bad.SchedulerAlgorithm = "roundrobin"
	if _, _, err := op.SchedulerSetConfiguration(&bad, nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("bad algorithm: %v", err)
	}
}
