package report

import (
	"math"
	"strconv"
)

// niceTicks covers [lo, hi] with about n ticks whose step is 1, 2 or 5
// times a power of ten (Heckbert's "nice numbers"). It returns the first
// and last tick (first <= lo, last >= hi) and the step. An empty range
// (lo == hi) is widened so that the axis still has a scale.
func niceTicks(lo, hi float64, n int) (first, last, step float64) {
	if n < 2 {
		n = 2
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	if lo == hi {
		if lo == 0 {
			hi = 1
		} else {
			pad := math.Abs(lo) / 10
			lo, hi = lo-pad, hi+pad
		}
	}
	step = niceNum((hi-lo)/float64(n-1), true)
	first = math.Floor(lo/step) * step
	last = math.Ceil(hi/step) * step
	return first, last, step
}

// niceNum is a number near x of the form {1, 2, 5} x 10^k: the nearest
// when round is set, otherwise the smallest one >= x.
func niceNum(x float64, round bool) float64 {
	exp := math.Floor(math.Log10(x))
	frac := x / math.Pow(10, exp)
	var nice float64
	switch {
	case round && frac < 1.5:
		nice = 1
	case round && frac < 3:
		nice = 2
	case round && frac < 7:
		nice = 5
	case round:
		nice = 10
	case frac <= 1:
		nice = 1
	case frac <= 2:
		nice = 2
	case frac <= 5:
		nice = 5
	default:
		nice = 10
	}
	return nice * math.Pow(10, exp)
}

// tickValues lists the ticks from first to last by step, each rounded to
// the step's precision (no 0.30000000000000004).
func tickValues(first, last, step float64) []float64 {
	count := int(math.Round((last-first)/step)) + 1
	out := make([]float64, 0, count)
	for i := 0; i < count; i++ {
		v := first + float64(i)*step
		out = append(out, roundTo(v, step))
	}
	return out
}

// roundTo rounds v to the decimal precision of step.
func roundTo(v, step float64) float64 {
	d := decimals(step)
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}

// decimals is how many decimal places show a multiple of step exactly.
func decimals(step float64) int {
	if step <= 0 || step >= 1 {
		return 0
	}
	return int(math.Ceil(-math.Log10(step) - 1e-9))
}

// tickLabel formats tick v of an axis stepping by step whose largest
// tick is top (in absolute value), shortening thousands and millions
// ("20k", "1.5M") the same way on the whole axis so labels stay narrow.
func tickLabel(v, step, top float64) string {
	if v == 0 {
		return "0"
	}
	scale, suffix := 1.0, ""
	switch {
	case step >= 1e5 && top >= 1e6:
		scale, suffix = 1e6, "M"
	case step >= 1e3 && top >= 1e4:
		scale, suffix = 1e3, "k"
	}
	return strconv.FormatFloat(v/scale, 'f', decimals(step/scale), 64) + suffix
}

// downsample thins the points (xs[i], ys[i]) to at most max (at least 4)
// while keeping the shape a reader looks for: the first and last points
// and, for each of (max-2)/2 equal runs of the points between them, its
// lowest and highest point (so every extreme survives). Points stay in x
// order. The inputs are not modified; short series are returned as given.
func downsample(xs, ys []float64, max int) ([]float64, []float64) {
	n := len(xs)
	if max < 4 {
		max = 4
	}
	if n <= max {
		return xs, ys
	}
	buckets := (max - 2) / 2
	inner := n - 2
	ox := make([]float64, 0, max)
	oy := make([]float64, 0, max)
	ox, oy = append(ox, xs[0]), append(oy, ys[0])
	for b := 0; b < buckets; b++ {
		from := 1 + b*inner/buckets
		to := 1 + (b+1)*inner/buckets
		if from >= to {
			continue
		}
		lo, hi := from, from
		for i := from; i < to; i++ {
			if ys[i] < ys[lo] {
				lo = i
			}
			if ys[i] > ys[hi] {
				hi = i
			}
		}
		if lo > hi {
			lo, hi = hi, lo
		}
		ox, oy = append(ox, xs[lo]), append(oy, ys[lo])
		if hi != lo {
			ox, oy = append(ox, xs[hi]), append(oy, ys[hi])
		}
	}
	ox, oy = append(ox, xs[n-1]), append(oy, ys[n-1])
	return ox, oy
}
