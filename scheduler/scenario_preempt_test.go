package scheduler_test

import (
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// schedConfig changes the store's scheduler configuration: the fields
// named in args, the rest kept.
func (sc *scenario) schedConfig(args map[string]string) string {
	cur, _ := sc.store.SchedulerConfig()
	cfg := cur.Copy()
	if a, ok := args["algorithm"]; ok {
		cfg.SchedulerAlgorithm = a
	}
	p := &cfg.PreemptionConfig
	for key, dst := range map[string]*bool{
		"preempt_service": &p.ServiceSchedulerEnabled, "preempt_batch": &p.BatchSchedulerEnabled,
		"preempt_system": &p.SystemSchedulerEnabled, "preempt_sysbatch": &p.SysBatchSchedulerEnabled,
	} {
		if v, ok := args[key]; ok {
			b, err := strconv.ParseBool(v)
			if err != nil {
				sc.t.Fatalf("%s=%q: %v", key, v, err)
			}
			*dst = b
		}
	}
	if err := cfg.Validate(); err != nil {
		sc.t.Fatalf("sched-config: %v", err)
	}
	sc.store.SetSchedulerConfig(cfg)
	return ""
}

// allocReport sets the client status of the newest alloc named name, live
// or not (a client reporting on an alloc the server already stopped).
func (sc *scenario) allocReport(name, status string) string {
	var target *structs.Allocation
	for _, a := range sc.store.Allocs() {
		if a.Name == name {
			target = a
		}
	}
	if target == nil {
		sc.t.Fatalf("no alloc %q", name)
	}
	a := target.Copy()
	a.ClientStatus = status
	a.ModifyTime = sc.now.UnixNano()
	sc.store.UpsertAllocs(a)
	return ""
}
