package scheduler

import (
	"math"

	"github.com/nomadish/nomadish/structs"
)

// compiledAffinity is an affinity parsed once per eval.
type compiledAffinity struct {
	op     operator
	l, r   target
	weight float64
}

// nodeAffinityIterator scores nodes by the group's affinities (the job's,
// the group's and its tasks'), as Nomad's NodeAffinityIterator: the sum of
// the weights of the affinities the node matches over the sum of all
// weights' magnitudes, from -1 to 1. A node matching none scores 0, which is
// not averaged in; a group without affinities records 0.
type nodeAffinityIterator struct {
	source rankIterator
	job    *structs.Job
	cache  *constraintCache
	groups map[string]*affinityGroup // by group name, compiled on first use
	cur    *affinityGroup
}

type affinityGroup struct {
	affinities []compiledAffinity
	sumWeight  float64 // sum of |weight|
}

func newNodeAffinityIterator(source rankIterator, job *structs.Job) *nodeAffinityIterator {
	return &nodeAffinityIterator{source: source, job: job, cache: newConstraintCache(), groups: map[string]*affinityGroup{}}
}

// groupAffinities returns the affinities that apply to tg: the job's, the
// group's, then each task's.
func groupAffinities(job *structs.Job, tg *structs.TaskGroup) []*structs.Affinity {
	out := append([]*structs.Affinity(nil), job.Affinities...)
	out = append(out, tg.Affinities...)
	for _, t := range tg.Tasks {
		out = append(out, t.Affinities...)
	}
	return out
}

func (it *nodeAffinityIterator) setTaskGroup(tg *structs.TaskGroup) {
	if g := it.groups[tg.Name]; g != nil {
		it.cur = g
		return
	}
	g := &affinityGroup{}
	for _, a := range groupAffinities(it.job, tg) {
		if a == nil || a.Weight == 0 {
			continue
		}
		g.affinities = append(g.affinities, compiledAffinity{op: parseOperator(a.Operand),
			l: parseTarget(a.LTarget), r: parseTarget(a.RTarget), weight: float64(a.Weight)})
		g.sumWeight += math.Abs(float64(a.Weight))
	}
	it.groups[tg.Name], it.cur = g, g
}

func (it *nodeAffinityIterator) Next() *rankedNode {
	r := it.source.Next()
	if r == nil {
		return nil
	}
	if len(it.cur.affinities) == 0 {
		r.addScore(scorerNodeAffinity, 0, false)
		return r
	}
	if score := it.score(r.node); score != 0 {
		r.addScore(scorerNodeAffinity, score, true)
	}
	return r
}

// score is the node's affinity score, -1..1.
func (it *nodeAffinityIterator) score(n *structs.Node) float64 {
	total := 0.0
	for i := range it.cur.affinities {
		a := &it.cur.affinities[i]
		l, lok := a.l.resolve(n)
		r, rok := a.r.resolve(n)
		if it.cache.checkOperator(a.op, l, r, lok, rok) {
			total += a.weight
		}
	}
	return total / it.cur.sumWeight
}

func (it *nodeAffinityIterator) Reset() { it.source.Reset() }
