package scheduler

import (
	"github.com/nomadish/nomadish/structs"
)

// spreadIterator scores nodes by the group's spread blocks (the group's,
// then the job's), as Nomad's SpreadIterator. For a spread with targets, a
// node whose attribute value has fewer allocations than its share gets a
// boost of (desired-used)/desired, weighted by the spread's share of the
// total weight; values without a target share the remainder ("implicit
// target") or score -1. For a spread without targets, allocations should be
// even over the values seen among the group's feasible nodes
// (evenSpreadBoost). A node without the attribute scores -1. The sum over
// the spreads is averaged in when it is not 0.
//
// Counts are kept per value: built once per group and eval from the
// group's allocations (existing + planned) and then incremented by placed,
// so scoring a node is a map lookup per spread, not a walk over allocations.
type spreadIterator struct {
	ctx    *evalContext
	source rankIterator
	job    *structs.Job
	// feasible returns the group's feasible nodes (for even spreads) and
	// their positions in the stack's list (-1: none).
	feasible func() ([]*structs.Node, []int32)
	groups   map[string]*spreadGroup
	cur      *spreadGroup
}

type spreadGroup struct {
	spreads   []*spreadAttr
	sumWeight float64
}

// spreadAttr is one spread block's state for one group.
type spreadAttr struct {
	attr   target
	weight float64
	// desired is the wanted count per value (targets only); implicit is the
	// count left for the values without a target (hasImplicit when > 0).
	desired     map[string]float64
	implicit    float64
	hasImplicit bool
	// Values are numbered in the order met (index); counts[i] is the live
	// allocs of the group on value i, counted[i] whether the value takes
	// part in an even spread's min and max (it holds allocations or was
	// seen among the group's feasible nodes), want[i] its desired count
	// (targets), or -1 when the value scores -1.
	index   map[string]int
	counts  []int
	counted []bool
	want    []float64
	total   int
	// byPos is, per node position in the stack's list, the value's index+2,
	// or 1 for a node without the attribute, 0 when not resolved yet.
	byPos []int32
	// min and max of counts, for even spreads; recomputed when dirty.
	min, max int
	dirty    bool
}

// value returns the index of value v, numbering it when new.
func (sa *spreadAttr) value(v string) int {
	if i, ok := sa.index[v]; ok {
		return i
	}
	i := len(sa.counts)
	sa.index[v] = i
	sa.counts = append(sa.counts, 0)
	sa.counted = append(sa.counted, false)
	want := -1.0
	if d, ok := sa.desired[v]; ok {
		want = d
	} else if sa.hasImplicit {
		want = sa.implicit
	}
	sa.want = append(sa.want, want)
	return i
}

// valueOf returns the index of the node's value, false when it lacks the
// attribute; pos is the node's position (-1: none), by which it is cached.
func (sa *spreadAttr) valueOf(n *structs.Node, pos int32) (int, bool) {
	if pos >= 0 && int(pos) < len(sa.byPos) {
		switch v := sa.byPos[pos]; v {
		case 0:
		case 1:
			return 0, false
		default:
			return int(v - 2), true
		}
	}
	v, ok := sa.attr.resolve(n)
	i := -1
	if ok {
		i = sa.value(v)
	}
	if pos >= 0 {
		if int(pos) >= len(sa.byPos) {
			sa.byPos = append(sa.byPos, make([]int32, int(pos)+1-len(sa.byPos))...)
		}
		sa.byPos[pos] = int32(i + 2)
	}
	return i, ok
}

func newSpreadIterator(ctx *evalContext, source rankIterator, job *structs.Job, feasible func() ([]*structs.Node, []int32)) *spreadIterator {
	return &spreadIterator{ctx: ctx, source: source, job: job, feasible: feasible, groups: map[string]*spreadGroup{}}
}

// groupSpreads returns the spreads that apply to tg: the group's, then the
// job's on attributes the group does not spread on itself.
func groupSpreads(job *structs.Job, tg *structs.TaskGroup) []*structs.Spread {
	var out []*structs.Spread
	seen := map[string]bool{}
	for _, s := range append(append([]*structs.Spread(nil), tg.Spreads...), job.Spreads...) {
		if s != nil && !seen[s.Attribute] {
			seen[s.Attribute] = true
			out = append(out, s)
		}
	}
	return out
}

// setTaskGroup switches to tg, counting its allocations per value the first
// time it is seen in this eval.
func (it *spreadIterator) setTaskGroup(tg *structs.TaskGroup) error {
	if g := it.groups[tg.Name]; g != nil {
		it.cur = g
		return nil
	}
	g := &spreadGroup{}
	it.groups[tg.Name], it.cur = g, g
	spreads := groupSpreads(it.job, tg)
	if len(spreads) == 0 {
		return nil
	}
	for _, s := range spreads {
		g.spreads = append(g.spreads, newSpreadAttr(s, tg.Count))
		g.sumWeight += float64(s.Weight)
	}
	allocs, err := it.ctx.groupAllocs(it.job, tg.Name)
	if err != nil {
		return err
	}
	for _, a := range allocs {
		n, err := it.ctx.node(a.NodeID)
		if err != nil {
			return err
		}
		if n != nil {
			g.placed(n, -1)
		}
	}
	var nodes []*structs.Node
	var pos []int32
	for _, sa := range g.spreads {
		if sa.desired == nil {
			if nodes == nil {
				nodes, pos = it.feasible()
			}
			for i, n := range nodes {
				if v, ok := sa.valueOf(n, pos[i]); ok {
					sa.counted[v] = true // a value seen, maybe without allocations
				}
			}
		}
	}
	return nil
}

func newSpreadAttr(s *structs.Spread, count int) *spreadAttr {
	sa := &spreadAttr{attr: parseTarget(s.Attribute), weight: float64(s.Weight), index: map[string]int{}, dirty: true}
	if len(s.SpreadTarget) == 0 {
		return sa
	}
	sa.desired = map[string]float64{}
	sum := 0.0
	for _, t := range s.SpreadTarget {
		d := float64(t.Percent) / 100 * float64(count)
		sa.desired[t.Value] = d
		sum += d
	}
	if sum > 0 && sum < float64(count) {
		sa.implicit, sa.hasImplicit = float64(count)-sum, true
	}
	return sa
}

// placed counts an allocation of the current group placed on node, at
// position pos of the stack's list (-1: none).
func (it *spreadIterator) placed(n *structs.Node, pos int32) { it.cur.placed(n, pos) }

func (g *spreadGroup) placed(n *structs.Node, pos int32) {
	for _, sa := range g.spreads {
		if i, ok := sa.valueOf(n, pos); ok {
			sa.counts[i]++
			sa.counted[i] = true
			sa.total++
			sa.dirty = true
		}
	}
}

func (it *spreadIterator) Next() *rankedNode {
	r := it.source.Next()
	if r == nil || len(it.cur.spreads) == 0 {
		return r
	}
	total := 0.0
	for _, sa := range it.cur.spreads {
		total += sa.score(r.node, r.pos, it.cur.sumWeight)
	}
	if total != 0 {
		r.addScore(scorerSpread, total, true)
	}
	return r
}

func (it *spreadIterator) Reset() { it.source.Reset() }

// score is this spread's part of a node's spread score; pos is the node's
// position in the stack's list (-1: none).
func (sa *spreadAttr) score(n *structs.Node, pos int32, sumWeight float64) float64 {
	i, ok := sa.valueOf(n, pos)
	if !ok {
		return -1
	}
	share := sa.weight / sumWeight
	if sa.desired == nil {
		if sa.dirty {
			sa.min, sa.max = minMax(sa.counts, sa.counted)
			sa.dirty = false
		}
		return evenSpreadBoost(sa.counts[i], sa.min, sa.max, sa.total) * share
	}
	if sa.want[i] < 0 {
		return -1
	}
	return targetSpreadBoost(sa.want[i], sa.counts[i]) * share
}

// targetSpreadBoost is Nomad's boost for a value with desired allocations
// that has used already: (desired-(used+1))/desired, counting the one being
// placed; negative once the value has its share. A value whose desired
// count is 0 gets the full penalty, -1.
func targetSpreadBoost(desired float64, used int) float64 {
	if desired <= 0 {
		return -1
	}
	return (desired - float64(used+1)) / desired
}

// evenSpreadBoost is Nomad's boost for even spreading, for a value holding
// current allocations when the values hold between lo and hi (total in
// all): 0 before anything is placed; the full boost 1 for an empty value
// while others have some; -1 for a value above an empty one; (lo-current)/lo
// for a value above the minimum; -1 when all values are even (no node is
// preferred); (hi-current)/lo for a value at the minimum.
func evenSpreadBoost(current, lo, hi, total int) float64 {
	switch {
	case total == 0:
		return 0
	case current != lo:
		if lo == 0 {
			return -1
		}
		return float64(lo-current) / float64(lo)
	case lo == hi:
		return -1
	case lo == 0:
		return 1
	}
	return float64(hi-current) / float64(lo)
}

// minMax returns the smallest and largest of the counts that are counted
// (0, 0 for none).
func minMax(counts []int, counted []bool) (lo, hi int) {
	first := true
	for i, c := range counts {
		if !counted[i] {
			continue
		}
		if first || c < lo {
			lo = c
		}
		if first || c > hi {
			hi = c
		}
		first = false
	}
	return lo, hi
}
