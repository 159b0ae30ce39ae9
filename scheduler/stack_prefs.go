package scheduler

import (
	"fmt"

	"github.com/nomadish/nomadish/structs"
)

// DefaultPreferenceScoreLimit is how many feasible nodes with room a
// placement scores when its group has an affinity or a spread (job, group or
// task level) and Config.PreferenceScoreLimit is 0. Nomad scores every
// feasible node then, which makes a spread job cost O(nodes) per placement
// (and O(allocations) per node for the spread counts): 23-32 placements per
// second at 5,000 nodes. nomadish keeps spread counts per attribute value
// (O(1) per node) and scores a bounded window of the shuffled node list that
// moves on between placements, so every node is considered over a job's
// placements. 100 candidates hold, with high probability, a node of every
// value of an attribute with up to a few dozen values, which keeps spreads
// within one allocation of even in the benchmark shapes (TestSpreadEvenness).
const DefaultPreferenceScoreLimit = 100

// selectOptions are per-placement inputs to Select.
type selectOptions struct {
	// PenaltyNodes are nodes to avoid (a rescheduled allocation's previous
	// nodes): the reschedule penalty scorer gives them -1.
	PenaltyNodes map[string]bool
}

// preferenceStack is the part of the pipeline after bin-packing: the
// scorers that express preferences, normalization and the limit.
type preferenceStack struct {
	stack        *genericStack
	batch        bool
	serviceLimit int
	// preferenceLimit overrides DefaultPreferenceScoreLimit when > 0; a
	// negative value scores every feasible node (Nomad's behaviour).
	preferenceLimit int

	antiAffinity *jobAntiAffinityIterator
	penalty      *reschedulePenaltyIterator
	affinity     *nodeAffinityIterator
	spread       *spreadIterator
	limit        *limitIterator
}

// newPreferenceStack wires the scorers after s.binPack and reads the
// scheduler algorithm from the state's scheduler configuration, overridden
// by the job's node pool's (node_pool_config.go).
func newPreferenceStack(s *genericStack, job *structs.Job, batch bool) *preferenceStack {
	p := &preferenceStack{stack: s, batch: batch, serviceLimit: serviceLimit(len(s.source.nodes))}
	if cfg, err := jobSchedulerConfig(s.ctx.state, job); err != nil {
		s.ctx.err = fmt.Errorf("reading the scheduler configuration: %w", err)
	} else {
		s.binPack.spread = cfg.EffectiveSchedulerAlgorithm() == structs.SchedulerAlgorithmSpread
	}
	p.antiAffinity = &jobAntiAffinityIterator{ctx: s.ctx, source: s.binPack, job: job}
	p.penalty = &reschedulePenaltyIterator{source: p.antiAffinity}
	p.affinity = newNodeAffinityIterator(p.penalty, job)
	p.spread = newSpreadIterator(s.ctx, p.affinity, job, p.feasibleNodes)
	norm := &normalizeIterator{ctx: s.ctx, source: p.spread}
	p.limit = &limitIterator{source: norm}
	return p
}

// setTaskGroup readies the scorers and the limit for a placement of tg.
func (p *preferenceStack) setTaskGroup(tg *structs.TaskGroup, opts *selectOptions) error {
	if err := p.antiAffinity.setTaskGroup(tg); err != nil {
		return err
	}
	p.penalty.penalty = nil
	if opts != nil {
		p.penalty.penalty = opts.PenaltyNodes
	}
	p.affinity.setTaskGroup(tg)
	if err := p.spread.setTaskGroup(tg); err != nil {
		return err
	}
	p.limit.limit = p.limitFor()
	return nil
}

// limitFor is how many ranked nodes the current placement compares.
func (p *preferenceStack) limitFor() int {
	if len(p.affinity.cur.affinities) > 0 || len(p.spread.cur.spreads) > 0 {
		switch {
		case p.preferenceLimit < 0:
			return len(p.stack.source.nodes)
		case p.preferenceLimit > 0:
			return p.preferenceLimit
		}
		return DefaultPreferenceScoreLimit
	}
	if p.batch {
		return 2
	}
	return p.serviceLimit
}

// placed tells the scorers an allocation of the current group goes to n,
// at position pos of the stack's list (-1: unknown).
func (p *preferenceStack) placed(n *structs.Node, pos int32) {
	p.antiAffinity.placed(n, pos)
	p.spread.placed(n, pos)
}

// feasibleNodes returns the nodes of the stack's source that pass every
// feasibility checker for the group being selected (Select sets the checkers
// up before the scorers), and their positions in the stack's list (-1 for
// a stand-in list): the values an even spread spreads over. The spread
// scorer calls it once per group and eval; it does not count in the metric.
// On the stack's own list it goes through the feasibility cache, whose
// verdicts the placements then find.
func (p *preferenceStack) feasibleNodes() ([]*structs.Node, []int32) {
	var out []*structs.Node
	var pos []int32
	src, f := p.stack.source, p.stack.feasible
	cached := src.slotted && f.cache.cur != nil
next:
	for i, n := range src.nodes {
		if cached {
			if v, _ := f.cache.verdict(i, n, f.static); v != verdictFeasible {
				continue
			}
			if ok, _ := f.dynamic.dynamicFeasible(n); !ok {
				continue
			}
			out, pos = append(out, n), append(pos, int32(i))
			continue
		}
		for _, c := range p.stack.checkers {
			if ok, _ := c.Feasible(n); !ok {
				continue next
			}
		}
		out, pos = append(out, n), append(pos, -1)
	}
	return out, pos
}
