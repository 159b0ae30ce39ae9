package jobspec

import (
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/structs"
)

// decodeUpdate decodes an update block (job or group level) and checks each
// value alone, reporting at the value. fillUpdate merges the blocks. It
// returns nil for a block with labels.
func (p *parser) decodeUpdate(b *hclsyntax.Block) *structs.UpdateStrategy {
	if !p.labels(b) {
		return nil
	}
	u := &structs.UpdateStrategy{}
	p.decodeBody(b.Body, bodySpec{
		where: "update",
		attrs: map[string]any{
			"stagger": &u.Stagger, "max_parallel": &u.MaxParallel, "health_check": &u.HealthCheck,
			"min_healthy_time": &u.MinHealthyTime, "healthy_deadline": &u.HealthyDeadline,
			"progress_deadline": &u.ProgressDeadline, "auto_revert": &u.AutoRevert,
			"auto_promote": &u.AutoPromote, "canary": &u.Canary,
		},
	})
	attrs := b.Body.Attributes
	set := map[string]bool{}
	for name := range attrs {
		set[name] = true
	}
	if p.updateSet == nil {
		p.updateSet = map[*structs.UpdateStrategy]map[string]bool{}
	}
	p.updateSet[u] = set
	for name, v := range map[string]int{"max_parallel": u.MaxParallel, "canary": u.Canary} {
		if a, ok := attrs[name]; ok && v < 0 {
			p.errorf(a.Expr.Range(), "Invalid "+name, "%s can't be negative (got %d).", name, v)
		}
	}
	if a, ok := attrs["health_check"]; ok {
		switch u.HealthCheck {
		case structs.UpdateHealthCheckChecks, structs.UpdateHealthCheckTaskStates, structs.UpdateHealthCheckManual:
		default:
			p.errorf(a.Expr.Range(), "Invalid health_check", "The health_check %q is not one of %q, %q or %q.",
				u.HealthCheck, structs.UpdateHealthCheckChecks, structs.UpdateHealthCheckTaskStates, structs.UpdateHealthCheckManual)
		}
	}
	for _, name := range []string{"stagger", "min_healthy_time", "healthy_deadline", "progress_deadline"} {
		if a, ok := attrs[name]; ok {
			if d := map[string]int64{"stagger": int64(u.Stagger), "min_healthy_time": int64(u.MinHealthyTime),
				"healthy_deadline": int64(u.HealthyDeadline), "progress_deadline": int64(u.ProgressDeadline)}[name]; d < 0 {
				p.errorf(a.Expr.Range(), "Invalid "+name, "%s can't be negative.", name)
			}
		}
	}
	return u
}

// fillUpdate merges the job's and each group's update blocks over Nomad's
// default, field by field (a group's fields override the job's), as Nomad
// does: job.Update gets the job-level result and every group with a block,
// or whose job has one, its own. Without any block the groups keep nil
// (Canonicalize gives service groups the default).
func (p *parser) fillUpdate(job *structs.Job) {
	base := structs.DefaultUpdateStrategy()
	if job.Update != nil {
		apply(base, job.Update, p.updateSet[job.Update])
		job.Update = base.Copy()
	}
	for _, tg := range job.TaskGroups {
		if tg.Update == nil {
			if job.Update != nil {
				tg.Update = base.Copy()
			}
			continue
		}
		u := base.Copy()
		apply(u, tg.Update, p.updateSet[tg.Update])
		tg.Update = u
	}
}

// apply copies onto dst the fields of src that its block set.
func apply(dst, src *structs.UpdateStrategy, set map[string]bool) {
	if set["stagger"] {
		dst.Stagger = src.Stagger
	}
	if set["max_parallel"] {
		dst.MaxParallel = src.MaxParallel
	}
	if set["health_check"] {
		dst.HealthCheck = src.HealthCheck
	}
	if set["min_healthy_time"] {
		dst.MinHealthyTime = src.MinHealthyTime
	}
	if set["healthy_deadline"] {
		dst.HealthyDeadline = src.HealthyDeadline
	}
	if set["progress_deadline"] {
		dst.ProgressDeadline = src.ProgressDeadline
	}
	if set["auto_revert"] {
		dst.AutoRevert = src.AutoRevert
	}
	if set["auto_promote"] {
		dst.AutoPromote = src.AutoPromote
	}
	if set["canary"] {
		dst.Canary = src.Canary
	}
}
