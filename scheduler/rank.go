package scheduler

import (
	"math"

	"github.com/nomadish/nomadish/structs"
)

// maxBinPackScore is the top of structs.ScoreFitBinPack's scale.
const maxBinPackScore = 18.0

// rankedNode is a feasible node with room for the ask, and its scores.
// Scorers record their score with addScore; the normalization iterator sets
// score. Ranked nodes come from evalContext.newRanked and live until the
// next Select.
type rankedNode struct {
	node  *structs.Node
	pos   int32   // the node's position in the stack's list (node slots), -1 for none
	score float64 // final: the average of the scores that apply (normalizeIterator)

	scores  [maxScorers]scorerScore // each scorer's score, in pipeline order
	nscores int

	ports portAssignment // the host ports the placement would hold (zero: no networks; ports.go)
	cores coreAssignment // the cores the placement would hold (zero: no cores asked; cores.go)
}

// scorerScore is one scorer's score for a node. applies is false for a
// score recorded for the explanation only (a 0 anti-affinity score), which
// the final score does not average in, as in Nomad.
type scorerScore struct {
	value   float64
	name    scorerName
	applies bool
}

// maxScorers bounds the scores one node can carry (binpack, job-anti-affinity,
// node-reschedule-penalty, node-affinity, allocation-spread, and room for more).
const maxScorers = 8

// addScore records a scorer's score; applies says whether the final score
// averages it in.
func (r *rankedNode) addScore(name scorerName, value float64, applies bool) {
	if r.nscores < maxScorers {
		r.scores[r.nscores] = scorerScore{name: name, value: value, applies: applies}
		r.nscores++
	}
}

// rankIterator yields ranked nodes; nil means exhausted.
type rankIterator interface {
	Next() *rankedNode
	Reset()
}

// binPackIterator keeps the nodes where the ask fits next to what the node
// holds once the plan is applied (structs.AllocsFit's check, the plan
// applier's own, on per-node sums kept up to date with the plan: node_usage.go)
// and scores them with structs.ScoreFitBinPack (fuller is better) or, with
// the spread algorithm, structs.ScoreFitSpread (emptier is better).
type binPackIterator struct {
	ctx    *evalContext
	source nodeIterator
	// static is the stack's node list: a node at a position of it has a
	// slot (node_slots.go); nil for none.
	static *staticIterator
	scores scoreMemo // fit scores by capacity and usage (node_slots.go)
	ask    structs.ComparableResources
	// spread selects structs.ScoreFitSpread (the "spread" scheduler
	// algorithm: emptier nodes first) over ScoreFitBinPack.
	spread bool
	// networks is the group's network asks: when set, a node must also have
	// its static ports free and room for its dynamic ones (ports.go).
	networks []*structs.NetworkResource
	// cores is the group's cores asks: when set, a node must have the cores
	// free (cores.go), and they count in the cpu dimension at its MHz.
	cores []coreAsk
}

func newBinPackIterator(ctx *evalContext, source nodeIterator) *binPackIterator {
	return &binPackIterator{ctx: ctx, source: source}
}

func (it *binPackIterator) setAsk(ask *structs.AllocatedResources, cores []coreAsk) {
	it.ask = ask.Comparable()
	it.networks = ask.Shared.Networks
	it.cores = cores
}

func (it *binPackIterator) Next() *rankedNode {
	for n := it.source.Next(); n != nil; n = it.source.Next() {
		var dim string
		var sl *nodeSlot
		pos := -1
		if it.static != nil {
			pos = it.static.slot()
		}
		var u *nodeUsage
		var err error
		if pos >= 0 {
			sl = it.ctx.slots.at(pos)
			u, err = it.ctx.slotUsage(n, sl)
		} else {
			u, err = it.ctx.usage(n)
		}
		if err != nil {
			it.ctx.err = err
			return nil
		}
		ask := it.ask
		if len(it.cores) > 0 {
			ask.CpuShares = structs.SatAdd(ask.CpuShares, coresCPU(n, it.cores)) // the cheap sums first: a full node costs no core map
		}
		fit, dim, used := u.Fits(ask)
		if !fit {
			if dim == "cpu" && len(it.cores) > 0 {
				if plain, _, _ := u.Fits(it.ask); plain {
					dim = "cores" // the MHz of the asked cores are what is missing
				}
			}
			it.ctx.exhaustedNode(n, dim)
			continue
		}
		var cores coreAssignment
		if len(it.cores) > 0 {
			if cores, dim, err = it.ctx.assignCores(n, it.cores, nil); err != nil {
				it.ctx.err = err
				return nil
			}
			if dim != "" {
				it.ctx.exhaustedNode(n, dim)
				continue
			}
		}
		var ports portAssignment
		if len(it.networks) > 0 {
			if ports, dim, err = it.ctx.assignPorts(n, it.networks); err != nil {
				it.ctx.err = err
				return nil
			}
			if dim != "" {
				it.ctx.exhaustedNode(n, dim)
				continue
			}
		}
		r := it.ctx.newRanked(n)
		r.pos = int32(pos)
		r.ports, r.cores = ports, cores
		r.addScore(scorerBinPack, it.scores.fitScore(u.Avail, used, it.spread), true)
		if cores.ok {
			r.addScore(scorerCores, cores.score, true)
		}
		return r
	}
	return nil
}

func (it *binPackIterator) Reset() { it.source.Reset() }

// limitIterator stops after limit ranked nodes: the power of choices that
// keeps placement cost flat in the cluster size. As in Nomad, up to maxSkip
// nodes whose final score is at most skipScoreThreshold (a node that already
// runs the group, or that an affinity avoids) are set aside and only returned
// when the source runs out.
type limitIterator struct {
	source  rankIterator
	limit   int
	seen    int
	skipped []*rankedNode
	next    int // the next skipped node to hand out
}

// Nomad's LimitIterator settings.
const (
	skipScoreThreshold = 0.0
	maxSkip            = 3
)

func (it *limitIterator) Next() *rankedNode {
	if it.seen >= it.limit {
		return nil
	}
	n := it.source.Next()
	for n != nil && n.score <= skipScoreThreshold && len(it.skipped) < maxSkip {
		it.skipped = append(it.skipped, n)
		n = it.source.Next()
	}
	if n == nil && it.next < len(it.skipped) { // the source ran out: hand out the skipped
		n = it.skipped[it.next]
		it.next++
	}
	if n != nil {
		it.seen++
	}
	return n
}

func (it *limitIterator) Reset() {
	it.seen, it.next = 0, 0
	it.skipped = it.skipped[:0]
	it.source.Reset()
}

// maxScoreIterator returns the best of its source's nodes (the first on ties).
type maxScoreIterator struct{ source rankIterator }

func (it *maxScoreIterator) Next() *rankedNode {
	var best *rankedNode
	for n := it.source.Next(); n != nil; n = it.source.Next() {
		if best == nil || n.score > best.score {
			best = n
		}
	}
	return best
}

func (it *maxScoreIterator) Reset() { it.source.Reset() }

// serviceLimit is how many ranked nodes a service placement compares:
// ceil(log2(nodes)), at least 2, as in Nomad. Batch placements compare 2.
func serviceLimit(nodes int) int {
	limit := 2
	if nodes > 0 {
		if l := int(math.Ceil(math.Log2(float64(nodes)))); l > limit {
			limit = l
		}
	}
	return limit
}
