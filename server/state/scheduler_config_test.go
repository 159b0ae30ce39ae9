package state

import (
	"bytes"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestSchedulerConfigDefaultCASAndPersist(t *testing.T) {
	s := testStore(t)
	rec := &recorder{}
	s.SetNotifier(rec)
	got, err := s.SchedulerConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.ModifyIndex != 0 || !got.PreemptionEnabled(structs.JobTypeService) || !got.PreemptionEnabled(structs.JobTypeBatch) ||
		got.EffectiveSchedulerAlgorithm() != structs.SchedulerAlgorithmBinpack {
		t.Fatalf("default config %+v", got)
	}

	cfg := structs.DefaultSchedulerConfiguration()
	cfg.SchedulerAlgorithm = structs.SchedulerAlgorithmSpread
	cfg.PreemptionConfig.BatchSchedulerEnabled = false
	if ok, err := s.SchedulerSetConfig(10, cfg, true); err != nil || !ok {
		t.Fatalf("first CAS write at 0: ok=%v err=%v", ok, err)
	}
	if len(rec.capacity) != 1 || rec.capacity[0] != 10 {
		t.Fatalf("a config change should unblock evals: %v", rec.capacity)
	}
	cfg.ModifyIndex = 3 // stale
	if ok, err := s.SchedulerSetConfig(11, cfg, true); err != nil || ok {
		t.Fatalf("stale CAS write: ok=%v err=%v", ok, err)
	}
	cfg.ModifyIndex = 10
	cfg.PreemptionConfig.ServiceSchedulerEnabled = false
	if ok, err := s.SchedulerSetConfig(12, cfg, true); err != nil || !ok {
		t.Fatalf("CAS write at 10: ok=%v err=%v", ok, err)
	}
	got, _ = s.SchedulerConfig(nil)
	if got.CreateIndex != 10 || got.ModifyIndex != 12 || got.PreemptionEnabled(structs.JobTypeService) ||
		got.PreemptionEnabled(structs.JobTypeBatch) || got.SchedulerAlgorithm != structs.SchedulerAlgorithmSpread {
		t.Fatalf("stored %+v", got)
	}
	if idx, _ := s.Index(TableSchedulerConfig); idx != 12 {
		t.Fatalf("table index %d", idx)
	}

	var buf bytes.Buffer
	if err := s.Snapshot().Persist(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := Restore(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	restored, _ := r.SchedulerConfig(nil)
	if *restored != *got {
		t.Fatalf("restored %+v, want %+v", restored, got)
	}
}
