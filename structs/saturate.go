package structs

import "math"

// Saturating int64 arithmetic for resource sums. Every sum of resources that
// decides a fit (ComparableResources, AllocsFit, the scheduler's ranking and
// the plan applier's re-check) goes through these, so that no combination of
// asks, however large, can wrap around to a small or negative total and make
// an over-committed node look free. Validation bounds every ask (validate_bounds.go);
// saturation is the second line for values that reach the fit check another
// way (an old state, a forged plan).

// SatAdd returns a+b, clamped to [math.MinInt64, math.MaxInt64].
func SatAdd(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// SatSub returns a-b, clamped to [math.MinInt64, math.MaxInt64].
func SatSub(a, b int64) int64 {
	if b == math.MinInt64 {
		if a >= 0 {
			return math.MaxInt64
		}
		return a - b // a < 0: a - MinInt64 = a + 2^63 fits
	}
	return SatAdd(a, -b)
}

// SatMul returns a*b, clamped to [math.MinInt64, math.MaxInt64].
func SatMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		if (a > 0) == (b > 0) {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return p
}

// nonNeg returns v, or 0 when v is negative: an allocation never gives
// capacity back by holding a negative amount.
func nonNeg(v int64) int64 { return max(v, 0) }
