package structs

import (
	"math"
	"math/big"
	"testing"

	"pgregory.net/rapid"
)

// clampBig returns v clamped to int64's range.
func clampBig(v *big.Int) int64 {
	if v.Cmp(big.NewInt(math.MaxInt64)) > 0 {
		return math.MaxInt64
	}
	if v.Cmp(big.NewInt(math.MinInt64)) < 0 {
		return math.MinInt64
	}
	return v.Int64()
}

func TestSaturatingArithmeticTable(t *testing.T) {
	const maxI, minI = math.MaxInt64, math.MinInt64
	for _, c := range []struct {
		a, b          int64
		add, sub, mul int64
	}{
		{1, 2, 3, -1, 2},
		{maxI, 1, maxI, maxI - 1, maxI},
		{maxI, maxI, maxI, 0, maxI},
		{minI, -1, minI, minI + 1, maxI},
		{minI, minI, minI, 0, maxI},
		{0, minI, minI, maxI, 0},
		{-1, minI, minI, maxI, maxI},
		{-5, minI, minI, maxI - 4, maxI},
		{maxI, minI, -1, maxI, minI},
		{1 << 32, 1 << 32, 1 << 33, 0, maxI},
		{-(1 << 32), 1 << 32, 0, -(1 << 33), minI},
	} {
		if got := SatAdd(c.a, c.b); got != c.add {
			t.Errorf("SatAdd(%d, %d) = %d, want %d", c.a, c.b, got, c.add)
		}
		if got := SatSub(c.a, c.b); got != c.sub {
			t.Errorf("SatSub(%d, %d) = %d, want %d", c.a, c.b, got, c.sub)
		}
		if got := SatMul(c.a, c.b); got != c.mul {
			t.Errorf("SatMul(%d, %d) = %d, want %d", c.a, c.b, got, c.mul)
		}
	}
}

// anyInt64 draws values near the edges of int64 as often as small ones.
func anyInt64(rt *rapid.T, label string) int64 {
	return rapid.OneOf(
		rapid.Int64(),
		rapid.Int64Range(-1000, 1000),
		rapid.SampledFrom([]int64{math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, 1 << 62, -(1 << 62)}),
	).Draw(rt, label)
}

// TestPropertySaturatingArithmeticMatchesBigInt: each operation equals the
// exact (big.Int) result clamped to int64, so it never wraps.
func TestPropertySaturatingArithmeticMatchesBigInt(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		a, b := anyInt64(rt, "a"), anyInt64(rt, "b")
		ba, bb := big.NewInt(a), big.NewInt(b)
		if got, want := SatAdd(a, b), clampBig(new(big.Int).Add(ba, bb)); got != want {
			rt.Fatalf("SatAdd(%d, %d) = %d, want %d", a, b, got, want)
		}
		if got, want := SatSub(a, b), clampBig(new(big.Int).Sub(ba, bb)); got != want {
			rt.Fatalf("SatSub(%d, %d) = %d, want %d", a, b, got, want)
		}
		if got, want := SatMul(a, b), clampBig(new(big.Int).Mul(ba, bb)); got != want {
			rt.Fatalf("SatMul(%d, %d) = %d, want %d", a, b, got, want)
		}
	})
}

func fitNode(cpu, mem, disk int64) *Node {
	return &Node{ID: "n", NodeResources: &NodeResources{
		Cpu: NodeCpuResources{CpuShares: cpu}, Memory: NodeMemoryResources{MemoryMB: mem}, Disk: NodeDiskResources{DiskMB: disk}}}
}

func fitAlloc(cpu, mem, disk int64) *Allocation {
	return &Allocation{ID: GenerateUUID(), ClientStatus: AllocClientStatusPending, DesiredStatus: AllocDesiredStatusRun,
		AllocatedResources: &AllocatedResources{
			Tasks:  map[string]*AllocatedTaskResources{"t": {Cpu: AllocatedCpuResources{CpuShares: cpu}, Memory: AllocatedMemoryResources{MemoryMB: mem}}},
			Shared: AllocatedSharedResources{DiskMB: disk},
		}}
}

// TestPropertyAllocsFitNeverWraps: whatever the allocations hold (huge,
// negative, many), AllocsFit says they fit only when the exact sums of
// their non-negative amounts fit the node, and its reported usage is that
// sum clamped: sums of huge values never wrap around to "free".
func TestPropertyAllocsFitNeverWraps(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		node := fitNode(rapid.Int64Range(0, MaxCPU).Draw(rt, "ncpu"),
			rapid.Int64Range(0, MaxMemoryMB).Draw(rt, "nmem"), rapid.Int64Range(0, MaxDiskMB).Draw(rt, "ndisk"))
		var allocs []*Allocation
		sums := [3]*big.Int{new(big.Int), new(big.Int), new(big.Int)}
		for range rapid.IntRange(0, 6).Draw(rt, "n") {
			v := [3]int64{anyInt64(rt, "cpu"), anyInt64(rt, "mem"), anyInt64(rt, "disk")}
			allocs = append(allocs, fitAlloc(v[0], v[1], v[2]))
			for d := range v {
				sums[d].Add(sums[d], big.NewInt(max(v[d], 0)))
			}
		}
		fit, dim, used := AllocsFit(node, allocs)
		caps := node.Comparable()
		wantFit := sums[0].Cmp(big.NewInt(caps.CpuShares)) <= 0 &&
			sums[1].Cmp(big.NewInt(caps.MemoryMB)) <= 0 && sums[2].Cmp(big.NewInt(caps.DiskMB)) <= 0
		if fit != wantFit {
			rt.Fatalf("AllocsFit = %v (%s), want %v: sums %v of %+v", fit, dim, wantFit, sums, caps)
		}
		if got := [3]int64{used.CpuShares, used.MemoryMB, used.DiskMB}; got != [3]int64{clampBig(sums[0]), clampBig(sums[1]), clampBig(sums[2])} {
			rt.Fatalf("used %v, want the clamped sums %v", got, sums)
		}
	})
}

// TestAllocsFitHugeAskDoesNotWrap is the reported case: a 24 GB node with
// a small allocation and one of 2^63-1 MHz must not fit (the unsaturated
// sum wrapped negative and let 60 GB of allocations onto the node).
func TestAllocsFitHugeAskDoesNotWrap(t *testing.T) {
	node := fitNode(4000, 24*1024, 100000)
	allocs := []*Allocation{fitAlloc(100, 300, 300), fitAlloc(math.MaxInt64, math.MaxInt64, 0)}
	if fit, dim, used := AllocsFit(node, allocs); fit || dim != "cpu" || used.CpuShares != math.MaxInt64 {
		t.Fatalf("AllocsFit = %v %q %+v, want not fitting on cpu, used saturated", fit, dim, used)
	}
	for range 60 {
		allocs = append(allocs, fitAlloc(1, 1024, 1))
	}
	if fit, _, _ := AllocsFit(node, allocs); fit {
		t.Fatal("60 GB fit on a 24 GB node")
	}
	// A negative allocation gives nothing back.
	neg := []*Allocation{fitAlloc(-math.MaxInt64, -math.MaxInt64, -1), fitAlloc(4001, 100, 1)}
	if fit, dim, _ := AllocsFit(node, neg); fit || dim != "cpu" {
		t.Fatalf("a negative allocation made room: %v %q", fit, dim)
	}
}
