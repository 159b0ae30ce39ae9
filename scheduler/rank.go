package scheduler

import (
	"math"

	"github.com/nomadish/nomadish/structs"
)

// maxBinPackScore is the top of structs.ScoreFitBinPack's scale.
const maxBinPackScore = 18.0

// rankedNode is a feasible node with room for the ask, and its score.
type rankedNode struct {
	node   *structs.Node
	score  float64            // normalized, 0..1
	scores map[string]float64 // by scorer name
}

// rankIterator yields ranked nodes; nil means exhausted.
type rankIterator interface {
	Next() *rankedNode
	Reset()
}

// binPackIterator keeps the nodes where the ask fits next to what the node
// holds once the plan is applied (structs.AllocsFit, the plan applier's own
// check) and scores them with structs.ScoreFitBinPack: fuller is better.
type binPackIterator struct {
	ctx    *evalContext
	source nodeIterator
	probe  *structs.Allocation // stands for the allocation being placed
}

func newBinPackIterator(ctx *evalContext, source nodeIterator) *binPackIterator {
	return &binPackIterator{ctx: ctx, source: source, probe: &structs.Allocation{
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending,
	}}
}

func (it *binPackIterator) setAsk(ask *structs.AllocatedResources) { it.probe.AllocatedResources = ask }

func (it *binPackIterator) Next() *rankedNode {
	for n := it.source.Next(); n != nil; n = it.source.Next() {
		proposed, err := it.ctx.proposedAllocs(n.ID)
		if err != nil {
			it.ctx.err = err
			return nil
		}
		fit, dim, used := structs.AllocsFit(n, append(proposed, it.probe))
		if !fit {
			it.ctx.exhaustedNode(dim)
			continue
		}
		score := structs.ScoreFitBinPack(n, used) / maxBinPackScore
		r := &rankedNode{node: n, score: score, scores: map[string]float64{"binpack": score}}
		it.ctx.scoredNode(r)
		return r
	}
	return nil
}

func (it *binPackIterator) Reset() { it.source.Reset() }

// limitIterator stops after limit ranked nodes: the power of choices that
// keeps placement cost flat in the cluster size.
type limitIterator struct {
	source rankIterator
	limit  int
	seen   int
}

func (it *limitIterator) Next() *rankedNode {
	if it.seen >= it.limit {
		return nil
	}
	n := it.source.Next()
	if n != nil {
		it.seen++
	}
	return n
}

func (it *limitIterator) Reset() {
	it.seen = 0
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
