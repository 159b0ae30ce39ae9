package jobspec

import (
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/structs"
)

// The periodic and parameterized blocks of a job, a task's
// dispatch_payload and a group's scaling block, as Nomad's jobspec2 reads
// them. Values are checked where they are written (a cron that does not
// parse is an error at its string).

// decodePeriodic decodes periodic { cron crons prohibit_overlap time_zone
// enabled }; enabled defaults to true.
func (p *parser) decodePeriodic(b *hclsyntax.Block) *structs.PeriodicConfig {
	pc := &structs.PeriodicConfig{Enabled: true, SpecType: structs.PeriodicSpecCron}
	if !p.labels(b) {
		return pc
	}
	p.decodeBody(b.Body, bodySpec{
		where: "periodic",
		attrs: map[string]any{
			"cron": &pc.Spec, "crons": &pc.Specs, "prohibit_overlap": &pc.ProhibitOverlap,
			"time_zone": &pc.TimeZone, "enabled": &pc.Enabled,
		},
	})
	if a, ok := b.Body.Attributes["cron"]; ok && pc.Spec != "" {
		if err := structs.ValidateCron(pc.Spec); err != nil {
			p.errorf(a.Expr.Range(), "Invalid cron expression", "%s.", err)
		}
	}
	if a, ok := b.Body.Attributes["crons"]; ok {
		for _, s := range pc.Specs {
			if err := structs.ValidateCron(s); err != nil {
				p.errorf(a.Expr.Range(), "Invalid cron expression", "%s.", err)
			}
		}
	}
	if len(pc.AllSpecs()) == 0 {
		p.errorf(b.TypeRange, "Missing cron", "A periodic block needs cron = \"...\" or crons = [...].")
	}
	if a, ok := b.Body.Attributes["time_zone"]; ok {
		if _, err := pc.Location(); err != nil {
			p.errorf(a.Expr.Range(), "Invalid time zone", "%s.", err)
		}
	}
	return pc
}

// decodeParameterized decodes parameterized { payload meta_required
// meta_optional }; payload defaults to optional.
func (p *parser) decodeParameterized(b *hclsyntax.Block) *structs.ParameterizedJobConfig {
	pc := &structs.ParameterizedJobConfig{Payload: structs.DispatchPayloadOptional}
	if !p.labels(b) {
		return pc
	}
	p.decodeBody(b.Body, bodySpec{
		where: "parameterized",
		attrs: map[string]any{"payload": &pc.Payload, "meta_required": &pc.MetaRequired, "meta_optional": &pc.MetaOptional},
	})
	if a, ok := b.Body.Attributes["payload"]; ok {
		switch pc.Payload {
		case structs.DispatchPayloadOptional, structs.DispatchPayloadRequired, structs.DispatchPayloadForbidden:
		default:
			p.errorf(a.Expr.Range(), "Invalid payload", "The payload %q is not one of %q, %q or %q.", pc.Payload,
				structs.DispatchPayloadOptional, structs.DispatchPayloadRequired, structs.DispatchPayloadForbidden)
		}
	}
	return pc
}

// decodeDispatchPayload decodes dispatch_payload { file }.
func (p *parser) decodeDispatchPayload(b *hclsyntax.Block) *structs.DispatchPayloadConfig {
	dp := &structs.DispatchPayloadConfig{}
	if !p.labels(b) {
		return dp
	}
	p.decodeBody(b.Body, bodySpec{where: "dispatch_payload", attrs: map[string]any{"file": &dp.File}})
	if err := structs.CheckPayloadFile(dp.File); err != nil {
		rng := b.TypeRange
		if a, ok := b.Body.Attributes["file"]; ok {
			rng = a.Expr.Range()
		}
		p.errorf(rng, "Invalid dispatch_payload file", "The %s.", err)
	}
	return dp
}

// decodeScaling decodes a group's scaling { min max enabled policy {} };
// enabled defaults to true, the policy body is kept as generic data for an
// external autoscaler (as Nomad).
func (p *parser) decodeScaling(b *hclsyntax.Block) *structs.ScalingPolicy {
	sp := &structs.ScalingPolicy{Enabled: true, Type: structs.ScalingPolicyTypeHorizontal}
	if len(b.Labels) > 1 {
		p.labels(b) // reports the extra labels
		return sp
	}
	var min, max int
	p.decodeBody(b.Body, bodySpec{
		where:  "scaling",
		attrs:  map[string]any{"min": &min, "max": &max, "enabled": &sp.Enabled, "type": &sp.Type},
		blocks: blockFuncs{"policy": func(pb *hclsyntax.Block) { sp.Policy = p.decodeConfig(pb.Body) }},
	})
	sp.Min, sp.Max = int64(min), int64(max)
	if _, ok := b.Body.Attributes["max"]; !ok {
		p.errorf(b.TypeRange, "Missing max", "A group's scaling block needs max = N.")
	}
	if _, ok := b.Body.Attributes["min"]; !ok {
		sp.Min = structs.ScalingMinUnset // the group's count (Canonicalize), as Nomad
	}
	if min > max {
		p.errorf(b.Body.Attributes["min"].Expr.Range(), "Invalid scaling bounds", "min %d is greater than max %d.", min, max)
	}
	return sp
}

// taskAsGroup wraps a task written directly in a job in a group of its
// name and count 1, as Nomad does.
func taskAsGroup(t *structs.Task) *structs.TaskGroup {
	return &structs.TaskGroup{Name: t.Name, Count: 1, Tasks: []*structs.Task{t}}
}
