package jobspec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/internal/hclutil"
	"github.com/nomadish/nomadish/structs"
)

// rescheduleBlock is one decoded reschedule block: its values and which
// attributes it set, so that job-level and group-level blocks merge field
// by field over the job type's defaults (as Nomad does).
type rescheduleBlock struct {
	block  *hclsyntax.Block
	policy structs.ReschedulePolicy
	set    map[string]bool
}

// decodeReschedule decodes a reschedule block and checks each value alone
// (delay_function's value, no negative numbers), reporting at the value.
// It returns nil for a block with labels.
func (p *parser) decodeReschedule(b *hclsyntax.Block) *rescheduleBlock {
	if !p.labels(b) {
		return nil
	}
	rb := &rescheduleBlock{block: b, set: map[string]bool{}}
	r := &rb.policy
	p.decodeBody(b.Body, bodySpec{
		where: "reschedule",
		attrs: map[string]any{
			"attempts": &r.Attempts, "interval": &r.Interval, "delay": &r.Delay,
			"delay_function": &r.DelayFunction, "max_delay": &r.MaxDelay, "unlimited": &r.Unlimited,
		},
	})
	for name := range b.Body.Attributes {
		rb.set[name] = true
	}
	attr := func(name string) hcl.Range { return b.Body.Attributes[name].Expr.Range() }
	if rb.set["delay_function"] {
		switch r.DelayFunction {
		case structs.RescheduleDelayConstant, structs.RescheduleDelayExponential, structs.RescheduleDelayFibonacci:
		default:
			p.errorf(attr("delay_function"), "Invalid delay_function",
				"The delay_function %q is not one of %q, %q or %q.", r.DelayFunction,
				structs.RescheduleDelayConstant, structs.RescheduleDelayExponential, structs.RescheduleDelayFibonacci)
		}
	}
	if rb.set["attempts"] && r.Attempts < 0 {
		p.errorf(attr("attempts"), "Invalid attempts", "attempts can't be negative (got %d).", r.Attempts)
	}
	for name, d := range map[string]*int64{"interval": (*int64)(&r.Interval), "delay": (*int64)(&r.Delay), "max_delay": (*int64)(&r.MaxDelay)} {
		if rb.set[name] && *d < 0 {
			p.errorf(attr(name), "Invalid "+name, "%s can't be negative.", name)
		}
	}
	return rb
}

// apply sets on r the fields the block set.
func (rb *rescheduleBlock) apply(r *structs.ReschedulePolicy) {
	if rb == nil {
		return
	}
	src := &rb.policy
	if rb.set["attempts"] {
		r.Attempts = src.Attempts
	}
	if rb.set["interval"] {
		r.Interval = src.Interval
	}
	if rb.set["delay"] {
		r.Delay = src.Delay
	}
	if rb.set["delay_function"] {
		r.DelayFunction = src.DelayFunction
	}
	if rb.set["max_delay"] {
		r.MaxDelay = src.MaxDelay
	}
	if rb.set["unlimited"] {
		r.Unlimited = src.Unlimited
	}
}

// fillReschedule merges the job's and each group's reschedule blocks over
// the job type's default (group fields override job fields), once the type
// is known: job.Reschedule gets the job-level result, and every group that
// has a block, or whose job has one, gets its own. Groups of a job without
// blocks keep nil (Canonicalize gives them the default). System jobs may
// not have reschedule blocks.
func (p *parser) fillReschedule(job *structs.Job, jobBlock *rescheduleBlock, groups map[*structs.TaskGroup]*rescheduleBlock) {
	if job.Type == structs.JobTypeSystem || job.Type == structs.JobTypeSysBatch {
		for _, rb := range append([]*rescheduleBlock{jobBlock}, groupBlocks(job, groups)...) {
			if rb != nil {
				p.errorf(rb.block.TypeRange, "Reschedule not allowed",
					"%s jobs are never rescheduled; remove this reschedule block.", job.Type)
			}
		}
		return
	}
	typ := job.Type
	if typ == "" {
		typ = structs.JobTypeService // Canonicalize's default
	}
	base := structs.DefaultReschedulePolicy(typ)
	if base == nil { // an unknown type: Validate reports it
		base = &structs.ReschedulePolicy{DelayFunction: structs.RescheduleDelayConstant}
	}
	if jobBlock != nil {
		jobBlock.apply(base)
		job.Reschedule = base.Copy()
		p.checkReschedule(base, jobBlock, nil)
	}
	for _, tg := range job.TaskGroups {
		rb := groups[tg]
		if rb == nil {
			if jobBlock != nil {
				tg.ReschedulePolicy = base.Copy()
			}
			continue
		}
		r := base.Copy()
		rb.apply(r)
		tg.ReschedulePolicy = r
		p.checkReschedule(r, rb, jobBlock)
	}
}

func groupBlocks(job *structs.Job, groups map[*structs.TaskGroup]*rescheduleBlock) []*rescheduleBlock {
	var out []*rescheduleBlock
	for _, tg := range job.TaskGroups {
		if rb := groups[tg]; rb != nil {
			out = append(out, rb)
		}
	}
	return out
}

// checkReschedule reports the cross-field problems of a merged policy at
// the attribute that set the offending value (in rb, else in the job's
// block), or at rb's block.
func (p *parser) checkReschedule(r *structs.ReschedulePolicy, rb, jobBlock *rescheduleBlock) {
	at := func(names ...string) hcl.Range {
		for _, b := range []*rescheduleBlock{rb, jobBlock} {
			if b == nil {
				continue
			}
			for _, n := range names {
				if a := b.block.Body.Attributes[n]; a != nil {
					return a.Expr.Range()
				}
			}
		}
		return rb.block.TypeRange
	}
	if !r.Enabled() {
		return
	}
	// A problem of the job's block shows in every group that inherits it:
	// report it once.
	errorf := func(rng hcl.Range, summary, detail string, args ...any) {
		key := hclutil.Pos(rng) + summary
		if p.reschedReported[key] {
			return
		}
		if p.reschedReported == nil {
			p.reschedReported = map[string]bool{}
		}
		p.reschedReported[key] = true
		p.errorf(rng, summary, detail, args...)
	}
	if r.Attempts > 0 && r.Unlimited {
		errorf(at("unlimited", "attempts"), "Ambiguous reschedule policy",
			"attempts = %d with unlimited = true is ambiguous; set unlimited = false or remove attempts.", r.Attempts)
	}
	if r.Attempts > 0 && !r.Unlimited && r.Interval <= 0 {
		errorf(at("interval", "attempts"), "Invalid interval", "interval must be set when attempts > 0.")
	}
	if r.Delay < structs.ReschedulePolicyMinDelay {
		errorf(at("delay"), "Invalid delay", "delay %v is less than the minimum %v.", r.Delay, structs.ReschedulePolicyMinDelay)
	}
	if r.DelayFunction != structs.RescheduleDelayConstant && r.MaxDelay < r.Delay {
		errorf(at("max_delay", "delay"), "Invalid max_delay",
			"max_delay %v is less than delay %v; a %s delay grows from delay up to max_delay.", r.MaxDelay, r.Delay, r.DelayFunction)
	}
}
