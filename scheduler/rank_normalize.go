package scheduler

import (
	"math"

	"github.com/nomadish/nomadish/structs"
)

// scorerName names a scorer; its String is the name in Nomad's
// AllocMetric.ScoreMetaData. A ranked node records a score under a small
// number rather than a string, which keeps ranking a node cheap.
type scorerName uint8

// The scorers.
const (
	scorerBinPack scorerName = iota
	scorerJobAntiAffinity
	scorerReschedulePenalty
	scorerNodeAffinity
	scorerSpread
	scorerCores // cores.go
)

var scorerNames = [...]string{
	scorerBinPack:           "binpack",
	scorerJobAntiAffinity:   "job-anti-affinity",
	scorerReschedulePenalty: "node-reschedule-penalty",
	scorerNodeAffinity:      "node-affinity",
	scorerSpread:            "allocation-spread",
	scorerCores:             "numa-cores",
}

func (n scorerName) String() string { return scorerNames[n] }

// fitScore is the resource score of a node offering avail once used is
// placed on it, scaled to 0..1: with spread false structs.ScoreFitBinPack
// (fuller is better), with spread true structs.ScoreFitSpread (emptier is
// better). It takes the node's precomputed resources so that ranking does
// not recompute them; TestFitScore checks it against the structs functions.
func fitScore(avail, used structs.ComparableResources, spread bool) float64 {
	if avail.CpuShares <= 0 || avail.MemoryMB <= 0 {
		return 0
	}
	freeCPU := 1 - float64(used.CpuShares)/float64(avail.CpuShares)
	freeMem := 1 - float64(used.MemoryMB)/float64(avail.MemoryMB)
	total := math.Pow(10, freeCPU) + math.Pow(10, freeMem)
	score := 20.0 - total
	if spread {
		score = total - 2
	}
	return math.Max(0, math.Min(maxBinPackScore, score)) / maxBinPackScore
}

// normalizeIterator sets each node's final score to the average of the
// scores that apply (Nomad's ScoreNormalizationIterator) and records the
// node for the metric's ScoreMetaData.
type normalizeIterator struct {
	ctx    *evalContext
	source rankIterator
}

func (it *normalizeIterator) Next() *rankedNode {
	r := it.source.Next()
	if r == nil {
		return nil
	}
	r.score = normalizedScore(r)
	it.ctx.scoredNode(r)
	return r
}

func (it *normalizeIterator) Reset() { it.source.Reset() }

// normalizedScore is the average of the node's scores that apply, 0 when
// none does.
func normalizedScore(r *rankedNode) float64 {
	sum, n := 0.0, 0
	for _, s := range r.scores[:r.nscores] {
		if s.applies {
			sum += s.value
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
