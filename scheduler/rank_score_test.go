package scheduler

import (
	"fmt"
	"math"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestFitScore(t *testing.T) {
	node := &structs.Node{NodeResources: &structs.NodeResources{
		Cpu: structs.NodeCpuResources{CpuShares: 4000}, Memory: structs.NodeMemoryResources{MemoryMB: 8192}},
		ReservedResources: &structs.NodeReservedResources{Cpu: structs.NodeReservedCpuResources{CpuShares: 100}}}
	for _, used := range []structs.ComparableResources{{}, {CpuShares: 1000, MemoryMB: 1024}, {CpuShares: 3900, MemoryMB: 8192}, {CpuShares: 2000, MemoryMB: 100}} {
		avail := node.Comparable()
		if got, want := fitScore(avail, used, false), structs.ScoreFitBinPack(node, used)/maxBinPackScore; math.Abs(got-want) > 1e-12 {
			t.Errorf("binpack %+v: got %v, want %v", used, got, want)
		}
		if got, want := fitScore(avail, used, true), structs.ScoreFitSpread(node, used)/maxBinPackScore; math.Abs(got-want) > 1e-12 {
			t.Errorf("spread %+v: got %v, want %v", used, got, want)
		}
	}
	empty, full := structs.ComparableResources{}, node.Comparable()
	if fitScore(full, empty, false) >= fitScore(full, full, false) {
		t.Error("binpack should prefer the fuller node")
	}
	if fitScore(full, empty, true) <= fitScore(full, full, true) {
		t.Error("spread should prefer the emptier node")
	}
}

func TestAntiAffinityScore(t *testing.T) {
	for _, tc := range []struct {
		collisions, desired int
		want                float64
		applies             bool
	}{
		{0, 3, 0, false},
		{1, 3, -2.0 / 3, true},
		{2, 4, -3.0 / 4, true},
		{1, 0, 0, false},
	} {
		got, applies := antiAffinityScore(tc.collisions, tc.desired)
		if got != tc.want || applies != tc.applies {
			t.Errorf("antiAffinityScore(%d, %d) = %v, %v; want %v, %v", tc.collisions, tc.desired, got, applies, tc.want, tc.applies)
		}
	}
}

func TestTargetSpreadBoost(t *testing.T) {
	for _, tc := range []struct {
		desired float64
		used    int
		want    float64
	}{
		{4, 0, 0.75}, {4, 3, 0}, {4, 5, -0.5}, {0, 0, -1}, {0.5, 0, -1},
	} {
		if got := targetSpreadBoost(tc.desired, tc.used); got != tc.want {
			t.Errorf("targetSpreadBoost(%v, %d) = %v, want %v", tc.desired, tc.used, got, tc.want)
		}
	}
}

func TestEvenSpreadBoost(t *testing.T) {
	for _, tc := range []struct {
		current, lo, hi, total int
		want                   float64
	}{
		{0, 0, 0, 0, 0},    // nothing placed yet
		{0, 0, 2, 3, 1},    // an empty value while others have some
		{2, 0, 2, 3, -1},   // above an empty value
		{3, 2, 3, 8, -0.5}, // above the minimum
		{2, 2, 2, 6, -1},   // even: no preference
		{2, 2, 4, 9, 1},    // at the minimum: (hi-current)/lo
		{1, 1, 2, 4, 1},
	} {
		if got := evenSpreadBoost(tc.current, tc.lo, tc.hi, tc.total); got != tc.want {
			t.Errorf("evenSpreadBoost(%d, %d, %d, %d) = %v, want %v", tc.current, tc.lo, tc.hi, tc.total, got, tc.want)
		}
	}
}

func TestNormalizedScore(t *testing.T) {
	r := &rankedNode{}
	if normalizedScore(r) != 0 {
		t.Error("no scores: want 0")
	}
	r.addScore(scorerBinPack, 0.5, true)
	r.addScore(scorerJobAntiAffinity, 0, false) // recorded, not averaged
	r.addScore(scorerNodeAffinity, -0.25, true)
	if got := normalizedScore(r); got != 0.125 {
		t.Errorf("got %v, want 0.125", got)
	}
}

// sliceRanks yields fixed ranked nodes.
type sliceRanks struct {
	nodes []*rankedNode
	i     int
}

func (s *sliceRanks) Next() *rankedNode {
	if s.i == len(s.nodes) {
		return nil
	}
	s.i++
	return s.nodes[s.i-1]
}
func (s *sliceRanks) Reset() { s.i = 0 }

func TestLimitIteratorSkipsLowScores(t *testing.T) {
	mk := func(scores ...float64) []*rankedNode {
		out := make([]*rankedNode, len(scores))
		for i, s := range scores {
			out[i] = &rankedNode{node: &structs.Node{ID: fmt.Sprint(i)}, score: s}
		}
		return out
	}
	for _, tc := range []struct {
		scores []float64
		limit  int
		want   string
	}{
		{[]float64{0.5, 0.4, 0.3}, 2, "0 1"},
		{[]float64{-0.5, 0.4, 0.3}, 2, "1 2"},      // the negative one is set aside
		{[]float64{-0.5, -0.4, 0.3}, 2, "2 0"},     // and handed out when the rest runs out
		{[]float64{-1, -1, -1, -1, 0.2}, 2, "3 4"}, // at most 3 skipped
		{[]float64{-0.1, -0.2}, 5, "0 1"},          // all skipped, all returned
	} {
		it := &limitIterator{source: &sliceRanks{nodes: mk(tc.scores...)}, limit: tc.limit}
		it.Reset()
		var got []string
		for n := it.Next(); n != nil; n = it.Next() {
			got = append(got, n.node.ID)
		}
		if s := fmt.Sprint(got); s != "["+tc.want+"]" {
			t.Errorf("%v limit %d: got %s, want [%s]", tc.scores, tc.limit, s, tc.want)
		}
	}
}

func TestScoredNodeKeepsTopFive(t *testing.T) {
	c := &evalContext{metrics: &structs.AllocMetric{}}
	for i, s := range []float64{0.1, 0.9, 0.5, 0.9, 0.2, 0.7, 0.05, 0.8} {
		r := &rankedNode{node: &structs.Node{ID: fmt.Sprint(i)}, score: s}
		r.addScore(scorerBinPack, s, true)
		c.scoredNode(r)
	}
	c.finishMetric()
	var got []string
	for _, m := range c.metrics.ScoreMetaData {
		got = append(got, fmt.Sprintf("%s:%.2f", m.NodeID, m.Scores[scorerBinPack.String()]))
	}
	if s := fmt.Sprint(got); s != "[1:0.90 3:0.90 7:0.80 5:0.70 2:0.50]" {
		t.Errorf("got %s", s)
	}
}

func TestGroupPreferencesCombineLevels(t *testing.T) {
	aff := func(v string) *structs.Affinity {
		return &structs.Affinity{LTarget: "${meta.rack}", Operand: "=", RTarget: v, Weight: 10}
	}
	job := &structs.Job{
		Affinities: []*structs.Affinity{aff("job")},
		Spreads:    []*structs.Spread{{Attribute: "${meta.rack}", Weight: 10}, {Attribute: "${node.datacenter}", Weight: 20}},
	}
	tg := &structs.TaskGroup{
		Affinities: []*structs.Affinity{aff("group")},
		Spreads:    []*structs.Spread{{Attribute: "${meta.rack}", Weight: 90}},
		Tasks:      []*structs.Task{{Affinities: []*structs.Affinity{aff("task")}}},
	}
	var got []string
	for _, a := range groupAffinities(job, tg) {
		got = append(got, a.RTarget)
	}
	if s := fmt.Sprint(got); s != "[job group task]" {
		t.Errorf("affinities %s", s)
	}
	got = got[:0]
	for _, s := range groupSpreads(job, tg) {
		got = append(got, fmt.Sprintf("%s:%d", s.Attribute, s.Weight))
	}
	if s := fmt.Sprint(got); s != "[${meta.rack}:90 ${node.datacenter}:20]" {
		t.Errorf("spreads %s (the group's spread on an attribute wins over the job's)", s)
	}
}
