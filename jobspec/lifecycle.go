package jobspec

import (
	"time"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/structs"
)

// decodeLifecycle decodes a task's lifecycle block (hook, sidecar); an
// unknown or missing hook is an error at its value (or at the block).
func (p *parser) decodeLifecycle(b *hclsyntax.Block) *structs.TaskLifecycleConfig {
	if !p.labels(b) {
		return nil
	}
	lc := &structs.TaskLifecycleConfig{}
	p.decodeBody(b.Body, bodySpec{where: "lifecycle", attrs: map[string]any{"hook": &lc.Hook, "sidecar": &lc.Sidecar}})
	a, ok := b.Body.Attributes["hook"]
	if !ok {
		p.errorf(b.TypeRange, "Missing lifecycle hook",
			"A lifecycle block needs hook = %q, %q or %q.", structs.TaskLifecycleHookPrestart,
			structs.TaskLifecycleHookPoststart, structs.TaskLifecycleHookPoststop)
		return lc
	}
	if err := lc.Validate(); err != nil {
		p.errorf(a.Expr.Range(), "Invalid lifecycle hook", "The hook %q is not one of %q, %q or %q.", lc.Hook,
			structs.TaskLifecycleHookPrestart, structs.TaskLifecycleHookPoststart, structs.TaskLifecycleHookPoststop)
	}
	return lc
}

// decodeTaskRestart decodes a task's restart block; the attributes it
// leaves out come from the group's (fillTaskRestart).
func (p *parser) decodeTaskRestart(b *hclsyntax.Block) *structs.RestartPolicy {
	rp := &structs.RestartPolicy{}
	p.decodeRestart(b, rp)
	p.noteRestart(rp, b)
	return rp
}

// checkShutdownDelay reports a negative shutdown_delay of body at its value
// and returns the delay to keep (nil: unset or bad).
func (p *parser) checkShutdownDelay(body *hclsyntax.Body, d time.Duration) *time.Duration {
	a, ok := body.Attributes["shutdown_delay"]
	if !ok {
		return nil
	}
	if d < 0 {
		p.errorf(a.Expr.Range(), "Invalid shutdown_delay", "shutdown_delay can't be negative.")
		return nil
	}
	return &d
}

// fillTaskRestart merges each task's restart block over its group's, as
// Nomad does: the attributes the task's block sets win, the others are the
// group's (once fillRestartDefaults completed it), else the job type's
// defaults. Call it after fillRestartDefaults.
func fillTaskRestart(job *structs.Job, set map[*structs.RestartPolicy]map[string]bool) {
	def := structs.DefaultServiceRestartPolicy()
	if job.Type == structs.JobTypeBatch || job.Type == structs.JobTypeSysBatch {
		def = structs.DefaultBatchRestartPolicy()
	}
	for _, tg := range job.TaskGroups {
		base := def
		if tg.RestartPolicy != nil {
			base = tg.RestartPolicy
		}
		for _, t := range tg.Tasks {
			rp := t.RestartPolicy
			if rp == nil {
				continue
			}
			fillRestart(rp, base, set[rp])
		}
	}
}
