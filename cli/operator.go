package cli

import (
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// schedulerConfig is GET /v1/operator/scheduler/configuration.
func (c *apiClient) schedulerConfig() (*structs.SchedulerConfiguration, error) {
	var out structs.SchedulerConfigurationResponse
	if _, err := c.get("/v1/operator/scheduler/configuration", nil, &out); err != nil {
		return nil, err
	}
	if out.SchedulerConfig == nil {
		return nil, fmt.Errorf("the agent returned no scheduler configuration")
	}
	return out.SchedulerConfig, nil
}

// setSchedulerConfig is PUT /v1/operator/scheduler/configuration, with
// ?cas=ModifyIndex when cas is set.
func (c *apiClient) setSchedulerConfig(cfg *structs.SchedulerConfiguration, cas bool) (*structs.SchedulerSetConfigurationResponse, error) {
	q := url.Values{}
	if cas {
		q.Set("cas", strconv.FormatUint(cfg.ModifyIndex, 10))
	}
	var out structs.SchedulerSetConfigurationResponse
	_, err := c.do(http.MethodPut, "/v1/operator/scheduler/configuration", q, cfg, &out)
	return &out, err
}

// operatorSchedulerGetConfigCommand is `operator scheduler get-config`.
func operatorSchedulerGetConfigCommand(m *Meta, args []string) int {
	f := m.newFlags("operator scheduler get-config", "[options]")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	cfg, err := m.client(f).schedulerConfig()
	if err != nil {
		return m.errorf("querying scheduler configuration: %v", err)
	}
	printSchedulerConfig(m, cfg)
	return exitOK
}

func printSchedulerConfig(m *Meta, cfg *structs.SchedulerConfiguration) {
	p := cfg.PreemptionConfig
	kv(m.Out,
		"Scheduler Algorithm", cfg.EffectiveSchedulerAlgorithm(),
		"Memory Oversubscription", strconv.FormatBool(cfg.MemoryOversubscriptionEnabled),
		"Preemption Service Scheduler", strconv.FormatBool(p.ServiceSchedulerEnabled),
		"Preemption Batch Scheduler", strconv.FormatBool(p.BatchSchedulerEnabled),
		"Preemption System Scheduler", strconv.FormatBool(p.SystemSchedulerEnabled),
		"Preemption SysBatch Scheduler", strconv.FormatBool(p.SysBatchSchedulerEnabled),
		"Pause Eval Broker", strconv.FormatBool(cfg.PauseEvalBroker),
	)
}

// operatorSchedulerSetConfigCommand is `operator scheduler set-config`:
// the flags given change the current configuration, the others keep it.
// The write is a check-and-set against the configuration read first, so a
// concurrent change is not overwritten.
func operatorSchedulerSetConfigCommand(m *Meta, args []string) int {
	f := m.newFlags("operator scheduler set-config", "[options]")
	algo := f.String("scheduler-algorithm", "", `"binpack" or "spread"`)
	memOver := f.Bool("memory-oversubscription", false, "allow memory oversubscription (stored only)")
	svc := f.Bool("preempt-service-scheduler", true, "service jobs may preempt lower-priority allocations")
	batch := f.Bool("preempt-batch-scheduler", true, "batch jobs may preempt lower-priority allocations")
	sys := f.Bool("preempt-system-scheduler", true, "system jobs may preempt lower-priority allocations")
	sysb := f.Bool("preempt-sysbatch-scheduler", true, "sysbatch jobs may preempt lower-priority allocations")
	pause := f.Bool("pause-eval-broker", false, "pause the leader's eval broker (needed by eval delete)")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	c := m.client(f)
	cfg, err := c.schedulerConfig()
	if err != nil {
		return m.errorf("querying scheduler configuration: %v", err)
	}
	set := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if set["scheduler-algorithm"] {
		cfg.SchedulerAlgorithm = *algo
	}
	for name, dst := range map[string]struct {
		to  *bool
		val bool
	}{
		"memory-oversubscription":    {&cfg.MemoryOversubscriptionEnabled, *memOver},
		"preempt-service-scheduler":  {&cfg.PreemptionConfig.ServiceSchedulerEnabled, *svc},
		"preempt-batch-scheduler":    {&cfg.PreemptionConfig.BatchSchedulerEnabled, *batch},
		"preempt-system-scheduler":   {&cfg.PreemptionConfig.SystemSchedulerEnabled, *sys},
		"preempt-sysbatch-scheduler": {&cfg.PreemptionConfig.SysBatchSchedulerEnabled, *sysb},
		"pause-eval-broker":          {&cfg.PauseEvalBroker, *pause},
	} {
		if set[name] {
			*dst.to = dst.val
		}
	}
	if err := cfg.Validate(); err != nil {
		return m.errorf("in -scheduler-algorithm: %v", err)
	}
	resp, err := c.setSchedulerConfig(cfg, true)
	if err != nil {
		return m.errorf("updating scheduler configuration: %v", err)
	}
	if !resp.Updated {
		return m.errorf("updating scheduler configuration: it changed concurrently; try again")
	}
	fmt.Fprintln(m.Out, "Scheduler configuration updated!")
	return exitOK
}
