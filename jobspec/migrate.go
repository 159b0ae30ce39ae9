package jobspec

import (
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/structs"
)

// decodeMigrate decodes a migrate block (job or group level) and checks each
// value, reporting at the value. Canonicalize fills the fields a group's
// block leaves out from the job's block, then from Nomad's defaults. It
// returns nil for a block with labels.
func (p *parser) decodeMigrate(b *hclsyntax.Block) *structs.MigrateStrategy {
	if !p.labels(b) {
		return nil
	}
	m := &structs.MigrateStrategy{}
	p.decodeBody(b.Body, bodySpec{
		where: "migrate",
		attrs: map[string]any{
			"max_parallel": &m.MaxParallel, "health_check": &m.HealthCheck,
			"min_healthy_time": &m.MinHealthyTime, "healthy_deadline": &m.HealthyDeadline,
		},
	})
	attrs := b.Body.Attributes
	if a, ok := attrs["max_parallel"]; ok && m.MaxParallel < 0 {
		p.errorf(a.Expr.Range(), "Invalid max_parallel", "max_parallel can't be negative (got %d).", m.MaxParallel)
	}
	if a, ok := attrs["health_check"]; ok {
		switch m.HealthCheck {
		case structs.MigrateHealthCheckChecks, structs.MigrateHealthCheckTaskStates:
		default:
			p.errorf(a.Expr.Range(), "Invalid health_check", "The health_check %q is not one of %q or %q.",
				m.HealthCheck, structs.MigrateHealthCheckChecks, structs.MigrateHealthCheckTaskStates)
		}
	}
	for name, d := range map[string]*int64{"min_healthy_time": (*int64)(&m.MinHealthyTime), "healthy_deadline": (*int64)(&m.HealthyDeadline)} {
		if a, ok := attrs[name]; ok && *d < 0 {
			p.errorf(a.Expr.Range(), "Invalid "+name, "%s can't be negative.", name)
		}
	}
	return m
}
