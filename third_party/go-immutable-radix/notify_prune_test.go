package iradix

import (
	"fmt"
	"math/rand"
	"testing"
)

// randKey draws keys over a small alphabet, so inserts split edges and
// deletes merge them: the shapes where a pruned comparison could go wrong.
func randKey(r *rand.Rand) []byte {
	k := make([]byte, 1+r.Intn(8))
	for i := range k {
		k[i] = "abcd"[r.Intn(4)]
	}
	return k
}

// closedStates lists, in depth-first order, whether each node's and leaf's
// mutate channel is closed.
func closedStates(n *Node, out []string) []string {
	closed := func(ch chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	s := fmt.Sprintf("node %q %v", n.prefix, closed(n.mutateCh))
	if n.leaf != nil {
		s += fmt.Sprintf(" leaf %q %v", n.leaf.key, closed(n.leaf.mutateCh))
	}
	out = append(out, s)
	for _, e := range n.edges {
		out = closedStates(e.node, out)
	}
	return out
}

// TestPrunedSlowNotifyMatchesUpstream: the pruned slowNotify closes
// exactly the channels upstream's full walk closes, round after round on
// the same trees (a channel closed while the new tree still holds it would
// panic on the next round's close).
func TestPrunedSlowNotifyMatchesUpstream(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		build := func() *Tree {
			r := rand.New(rand.NewSource(seed))
			tree := New()
			for i := 0; i < 300; i++ {
				tree, _, _ = tree.Insert(randKey(r), i)
			}
			return tree
		}
		a, b := build(), build()
		ops := rand.New(rand.NewSource(seed * 7919))
		for round := 0; round < 15; round++ {
			ta, tb := a.Txn(), b.Txn()
			ta.TrackMutate(true)
			tb.TrackMutate(true)
			for i := 0; i < 1+ops.Intn(60); i++ {
				k := randKey(ops)
				switch ops.Intn(4) {
				case 0, 1:
					ta.Insert(k, i)
					tb.Insert(k, i)
				case 2:
					ta.Delete(k)
					tb.Delete(k)
				default:
					p := k[:1+ops.Intn(len(k))]
					ta.DeletePrefix(p)
					tb.DeletePrefix(p)
				}
			}
			oldA, oldB := ta.snap, tb.snap
			na, nb := ta.CommitOnly(), tb.CommitOnly()
			ta.slowNotify()
			tb.slowNotifyFull()
			got, want := closedStates(oldA, nil), closedStates(oldB, nil)
			if len(got) != len(want) {
				t.Fatalf("seed %d round %d: trees differ in shape (%d vs %d nodes)", seed, round, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("seed %d round %d: pruned %s, upstream %s", seed, round, got[i], want[i])
				}
			}
			a, b = na, nb
		}
	}
}

// BenchmarkSlowNotify: one overflowing transaction (10,000 inserts) on a
// tree of 200,000 keys and more, pruned against upstream's full walk.
func BenchmarkSlowNotify(b *testing.B) {
	for _, full := range []bool{false, true} {
		b.Run(fmt.Sprintf("full=%v", full), func(b *testing.B) {
			r := rand.New(rand.NewSource(1))
			tree := New()
			txn := tree.Txn()
			for i := 0; i < 200000; i++ {
				txn.Insert([]byte(fmt.Sprintf("%016x", r.Uint64())), i)
			}
			tree = txn.Commit()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				t := tree.Txn()
				t.TrackMutate(true)
				for j := 0; j < 10000; j++ {
					t.Insert([]byte(fmt.Sprintf("%016x", r.Uint64())), j)
				}
				tree = t.CommitOnly()
				b.StartTimer()
				if full {
					t.slowNotifyFull()
				} else {
					t.slowNotify()
				}
			}
		})
	}
}
