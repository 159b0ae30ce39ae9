package jobspec

import (
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/drivers/schema"
	"github.com/nomadish/nomadish/structs"
)

// checkDriver checks task t, decoded from block b, against its driver's
// schema (ParseConfig.Drivers; nil: nothing is checked): an unknown driver
// is an error at the driver argument's value, each problem of the config
// block at the key concerned (its name when unknown, its value when
// mistyped, the enclosing block when a required key is missing). A config
// block that had errors of its own is not reported for missing keys.
func (p *parser) checkDriver(b *hclsyntax.Block, t *structs.Task, configBroken bool) {
	l := p.cfg.Drivers
	attr, ok := b.Body.Attributes["driver"]
	if l == nil || !ok || t.Driver == "" {
		return // no driver: Validate says so
	}
	s, ok := l.TaskSchema(t.Driver)
	if !ok {
		msg, hint := schema.UnknownDriver(l, t.Driver)
		p.errorf(attr.Expr.Range(), msg, "%s", hint)
		return
	}
	if s == nil {
		return
	}
	var cfg *hclsyntax.Block
	for _, blk := range b.Body.Blocks {
		if blk.Type == "config" {
			cfg = blk
			break
		}
	}
	for _, prob := range s.Check(t.Config) {
		if prob.Kind == schema.Missing && configBroken {
			continue
		}
		summary := prob.Msg + " in config of driver " + strconv.Quote(t.Driver)
		if w := prob.Where(); w != "" {
			summary += " (in " + w + ")"
		}
		p.errorf(problemRange(b, cfg, prob), summary, "%s", prob.Hint)
	}
}

// problemRange finds prob's place in the task block b's config block cfg
// (nil: the task has none), following prob.Path through nested blocks; a
// path into an argument's value stops at that value.
func problemRange(b, cfg *hclsyntax.Block, prob schema.Problem) hcl.Range {
	if cfg == nil {
		return b.DefRange()
	}
	body, rng := cfg.Body, cfg.TypeRange
	for _, step := range prob.Path {
		if a, ok := body.Attributes[step.Key]; ok {
			return a.Expr.Range()
		}
		blk := nthBlock(body, step.Key, max(step.Index, 0))
		if blk == nil {
			return rng
		}
		body, rng = blk.Body, blk.TypeRange
	}
	if prob.Kind == schema.Missing {
		return rng
	}
	if a, ok := body.Attributes[prob.Key]; ok {
		if prob.Kind == schema.Unknown {
			return a.NameRange
		}
		return a.Expr.Range()
	}
	if blk := nthBlock(body, prob.Key, 0); blk != nil {
		return blk.TypeRange
	}
	return rng
}

// nthBlock is body's n-th block of type typ, or nil.
func nthBlock(body *hclsyntax.Body, typ string, n int) *hclsyntax.Block {
	for _, blk := range body.Blocks {
		if blk.Type == typ {
			if n == 0 {
				return blk
			}
			n--
		}
	}
	return nil
}
