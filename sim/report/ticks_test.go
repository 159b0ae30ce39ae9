package report

import (
	"math"
	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// isNice reports whether step is 1, 2 or 5 times a power of ten.
func isNice(step float64) bool {
	m := step / math.Pow(10, math.Floor(math.Log10(step)))
	for _, n := range []float64{1, 2, 5, 10} {
		if math.Abs(m-n) < 1e-9 {
			return true
		}
	}
	return false
}

func checkTicks(t *testing.T, lo, hi float64) {
	t.Helper()
	first, last, step := niceTicks(lo, hi, 6)
	ticks := tickValues(first, last, step)
	switch {
	case !isNice(step):
		t.Errorf("[%g, %g]: step %g is not nice", lo, hi, step)
	case first > lo || last < hi:
		t.Errorf("[%g, %g]: ticks %g..%g do not cover the data", lo, hi, first, last)
	case len(ticks) < 2 || len(ticks) > 12:
		t.Errorf("[%g, %g]: %d ticks %v", lo, hi, len(ticks), ticks)
	case math.Abs(first/step-math.Round(first/step)) > 1e-6:
		t.Errorf("[%g, %g]: first tick %g is not a multiple of %g", lo, hi, first, step)
	}
}

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi            float64
		first, last, step float64
	}{
		{0, 87, 0, 100, 20},
		{0, 100, 0, 100, 20},
		{0, 24, 0, 25, 5},
		{0, 0.87, 0, 1, 0.2},
		{3, 7, 3, 7, 1},
		{-5, 12, -5, 15, 5},
		{0, 0, 0, 1, 0.2},
		{0, 86400, 0, 100000, 20000},
	} {
		first, last, step := niceTicks(c.lo, c.hi, 6)
		if math.Abs(first-c.first) > 1e-9 || math.Abs(last-c.last) > 1e-9 || math.Abs(step-c.step) > 1e-9 {
			t.Errorf("niceTicks(%g, %g) = %g..%g by %g, want %g..%g by %g", c.lo, c.hi, first, last, step, c.first, c.last, c.step)
		}
		checkTicks(t, c.lo, c.hi)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		scale := math.Pow(10, float64(rng.Intn(16)-6))
		lo := (rng.Float64() - 0.3) * scale
		checkTicks(t, lo, lo+rng.Float64()*scale)
	}
	checkTicks(t, 1e6, 1e6)
}

func TestTickLabels(t *testing.T) {
	for _, c := range []struct {
		v, step, top float64
		want         string
	}{
		{0.6000000000000001, 0.2, 1, "0.6"},
		{0, 20000, 100000, "0"},
		{40000, 20000, 100000, "40k"},
		{5000, 1000, 8000, "5000"},
		{1500000, 500000, 3000000, "1.5M"},
		{0.05, 0.01, 0.1, "0.05"},
	} {
		if got := tickLabel(c.v, c.step, c.top); got != c.want {
			t.Errorf("tickLabel(%v, %v, %v) = %q, want %q", c.v, c.step, c.top, got, c.want)
		}
	}
}

// yTicks reads a chart's y tick labels back as numbers.
func yTicks(t *testing.T, svg string) []float64 {
	t.Helper()
	var ys []float64
	for _, m := range regexp.MustCompile(`class="ytick"[^>]*>([^<]*)<`).FindAllStringSubmatch(svg, -1) {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatalf("tick label %q", m[1])
		}
		ys = append(ys, v)
	}
	return ys
}

// TestChartAxisCoversData renders line and bar charts and reads their y
// tick labels back: nice, evenly spaced, from 0 or below to the data's top.
func TestChartAxisCoversData(t *testing.T) {
	for _, c := range []struct {
		ys       []float64
		min, max float64
	}{
		{[]float64{3, 41, 87, 12}, 0, 87},
		{[]float64{-4.5, 2, 0.3, 12}, -4.5, 12},
		{[]float64{0.01, 0.02, 0.013}, 0, 0.02},
	} {
		line := lineChart{ID: "c", Title: "t", Desc: "d", XLabel: "x", YLabel: "y",
			Series: []lineSeries{{Name: "s", X: []float64{0, 1, 2, 3}[:len(c.ys)], Y: c.ys}}}
		bars := barChart{ID: "b", Title: "t", Desc: "d", Categories: []string{"a", "b", "c", "d"},
			Series: []barSeries{{Name: "s", Values: c.ys}}}
		for _, svg := range []string{line.svg(), bars.svg()} {
			ys := yTicks(t, svg)
			if len(ys) < 3 || ys[0] > c.min || ys[len(ys)-1] < c.max {
				t.Fatalf("y ticks %v do not cover %g..%g", ys, c.min, c.max)
			}
			step := roundTo(ys[1]-ys[0], ys[1]-ys[0])
			for i := 1; i < len(ys); i++ {
				if d := ys[i] - ys[i-1]; math.Abs(d-step) > 1e-9 || !isNice(step) {
					t.Fatalf("y ticks %v are not evenly spaced by a nice step", ys)
				}
			}
		}
		if !strings.Contains(line.svg(), `<title id="c-t">t</title><desc id="c-d">d</desc>`) {
			t.Errorf("chart without its title and description:\n%s", line.svg())
		}
	}
}

func TestDownsampleKeepsShape(t *testing.T) {
	const n = 100_000
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = float64(i), math.Sin(float64(i)/1000)
	}
	ys[0], ys[n-1] = 0.25, -0.25
	ys[31_337], ys[77_777] = 9, -9 // a spike and a dip
	ox, oy := downsample(xs, ys, 600)
	if len(ox) > 600 || len(ox) != len(oy) || len(ox) < 500 {
		t.Fatalf("%d points", len(ox))
	}
	if ox[0] != 0 || oy[0] != 0.25 || ox[len(ox)-1] != n-1 || oy[len(oy)-1] != -0.25 {
		t.Errorf("first or last point lost: (%g, %g) (%g, %g)", ox[0], oy[0], ox[len(ox)-1], oy[len(oy)-1])
	}
	kept := map[float64]float64{}
	for i := range ox {
		if i > 0 && ox[i] <= ox[i-1] {
			t.Fatalf("x out of order at %d: %g after %g", i, ox[i], ox[i-1])
		}
		kept[ox[i]] = oy[i]
	}
	if kept[31_337] != 9 || kept[77_777] != -9 {
		t.Error("the extremes were dropped")
	}
	if ys[31_337] != 9 {
		t.Error("downsample modified its input")
	}
	short := []float64{1, 2, 3}
	if sx, _ := downsample(short, short, 600); len(sx) != 3 {
		t.Errorf("a short series changed: %v", sx)
	}
}
