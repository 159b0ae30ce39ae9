package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// The SVG plots of the HTML report: a line chart and a grouped bar chart,
// drawn without JavaScript or external resources. Every text that reaches
// the output goes through esc. Charts are inline in an HTML5 page, so they
// carry no xmlns (which would put a URL in the file).

// maxPoints is the most points a line keeps (see downsample): a 24 h run
// sampled every second still draws a small file.
const maxPoints = 600

// palette is Okabe and Ito's colour-blind safe set; lines of the second
// and later runs are also dashed, so colour is never the only cue.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"}

var dashes = []string{"", "6 4", "2 3", "10 3 2 3"}

func esc(s string) string { return html.EscapeString(s) }

// lineSeries is one line: points (X[i], Y[i]) in X order, drawn in
// palette colour Color with dash pattern Dash (both indexes, wrapping).
type lineSeries struct {
	Name  string
	X, Y  []float64
	Color int
	Dash  int
}

// lineChart is a line chart over a shared x axis.
type lineChart struct {
	ID             string // unique in the page, for aria references
	Title, Desc    string
	XLabel, YLabel string
	// YAtLeast makes the y axis reach at least this value (100 for
	// percentages) so a quiet run does not look full.
	YAtLeast float64
	Series   []lineSeries
}

// chart geometry, in SVG user units.
const (
	chartW      = 720
	chartH      = 300
	marginLeft  = 64
	marginRight = 16
	marginBot   = 44
	legendRow   = 18
	charW       = 7.4 // a generous width of a character at font-size 12
)

// frame is a plot area and the scales mapping data to it.
type frame struct {
	left, top, right, bottom float64
	x0, x1, y0, y1           float64
}

func (f frame) px(x float64) float64 {
	return f.left + (x-f.x0)/(f.x1-f.x0)*(f.right-f.left)
}

func (f frame) py(y float64) float64 {
	return f.bottom - (y-f.y0)/(f.y1-f.y0)*(f.bottom-f.top)
}

// svg renders the chart. Non-finite points are skipped, and so are the
// X or Y values past the shorter of the two.
func (c *lineChart) svg() string {
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), 0.0, c.YAtLeast
	for _, s := range c.Series {
		xs, ys := finitePoints(s.X, s.Y)
		for i := range xs {
			xmin, xmax = math.Min(xmin, xs[i]), math.Max(xmax, xs[i])
			ymin, ymax = math.Min(ymin, ys[i]), math.Max(ymax, ys[i])
		}
	}
	if xmin > xmax {
		xmin, xmax = 0, 1
	}
	keySVG, legendH := legend(c.Series, chartW)
	var b strings.Builder
	top := float64(legendH + 12)
	f := frame{left: marginLeft, top: top, right: chartW - marginRight, bottom: chartH - marginBot}
	openSVG(&b, c.ID, c.Title, c.Desc, chartH)
	b.WriteString(keySVG)
	f.x0, f.x1 = axisX(&b, f, xmin, xmax, c.XLabel)
	f.y0, f.y1 = axisY(&b, f, ymin, ymax, c.YLabel)
	for _, s := range c.Series {
		xs, ys := finitePoints(s.X, s.Y)
		xs, ys = downsample(xs, ys, maxPoints)
		if len(xs) == 0 {
			continue
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.8"%s points="`,
			palette[s.Color%len(palette)], dashAttr(s.Dash))
		for i := range xs {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%.1f,%.1f", f.px(xs[i]), f.py(ys[i]))
		}
		fmt.Fprintf(&b, `"><title>%s</title></polyline>`+"\n", esc(s.Name))
	}
	b.WriteString("</svg>")
	return b.String()
}

// legend draws one swatch and name per series in rows at the top of a
// chart width wide; it returns the SVG and the rows' height.
func legend(series []lineSeries, width float64) (string, int) {
	return legendOf(series, width, false)
}

// legendOf is legend with box swatches (for bars) instead of lines.
func legendOf(series []lineSeries, width float64, boxes bool) (string, int) {
	var b strings.Builder
	x, row := float64(marginLeft), 0
	for _, s := range series {
		w := 30 + float64(len([]rune(s.Name)))*charW + 20
		if x+w > width-marginRight && x > marginLeft {
			x, row = marginLeft, row+1
		}
		y := float64(row*legendRow + 14)
		if boxes {
			fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="18" height="10" fill="%s"/>`, x+3, y-9, palette[s.Color%len(palette)])
		} else {
			fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="3"%s/>`,
				x, y-4, x+24, y-4, palette[s.Color%len(palette)], dashAttr(s.Dash))
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", x+30, y, esc(s.Name))
		x += w
	}
	return b.String(), (row + 1) * legendRow
}

// barSeries is one set of bars, one per category.
type barSeries struct {
	Name   string
	Values []float64
	Color  int
}

// barChart is a grouped bar chart: for each category, one bar per series.
type barChart struct {
	ID          string
	Title, Desc string
	YLabel      string
	Categories  []string
	Series      []barSeries
	Width       int
}

func (c *barChart) svg() string {
	w := float64(c.Width)
	if w == 0 {
		w = chartW
	}
	ymin, ymax := 0.0, 0.0
	for _, s := range c.Series {
		for _, v := range s.Values {
			if finite(v) {
				ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
			}
		}
	}
	keys := make([]lineSeries, len(c.Series))
	for i, s := range c.Series {
		keys[i] = lineSeries{Name: s.Name, Color: s.Color}
	}
	keySVG, legendH := legendOf(keys, w, true)
	var b strings.Builder
	f := frame{left: marginLeft, top: float64(legendH + 12), right: w - marginRight, bottom: chartH - marginBot}
	openSVGWidth(&b, c.ID, c.Title, c.Desc, w, chartH)
	b.WriteString(keySVG)
	f.y0, f.y1 = axisY(&b, f, ymin, ymax, c.YLabel)
	zero := f.py(0)
	fmt.Fprintf(&b, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`+"\n", f.left, zero, f.right, zero)
	groupW := (f.right - f.left) / float64(max(1, len(c.Categories)))
	barW := groupW * 0.8 / float64(max(1, len(c.Series)))
	for ci, cat := range c.Categories {
		gx := f.left + float64(ci)*groupW + groupW*0.1
		for si, s := range c.Series {
			if ci >= len(s.Values) || !finite(s.Values[ci]) {
				continue
			}
			y := f.py(s.Values[ci])
			top, h := math.Min(y, zero), math.Abs(zero-y)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
				gx+float64(si)*barW, top, barW*0.92, h, palette[s.Color%len(palette)],
				esc(s.Name), esc(cat), esc(fmtFloat(s.Values[ci])))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n",
			f.left+(float64(ci)+0.5)*groupW, f.bottom+16, esc(cat))
	}
	b.WriteString("</svg>")
	return b.String()
}

func openSVG(b *strings.Builder, id, title, desc string, h float64) {
	openSVGWidth(b, id, title, desc, chartW, h)
}

// openSVGWidth starts an accessible SVG: role img, labelled by its
// <title> and described by its <desc>.
func openSVGWidth(b *strings.Builder, id, title, desc string, w, h float64) {
	id = esc(id)
	fmt.Fprintf(b, `<svg class="chart" role="img" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" aria-labelledby="%s-t %s-d">`+"\n",
		w, h, w, h, id, id)
	fmt.Fprintf(b, `<title id="%s-t">%s</title><desc id="%s-d">%s</desc>`+"\n", id, esc(title), id, esc(desc))
}

// axisX draws the x axis over [lo, hi] with nice ticks and returns the
// axis range (the first and last tick).
func axisX(b *strings.Builder, f frame, lo, hi float64, label string) (float64, float64) {
	first, last, step := niceTicks(lo, hi, 7)
	f.x0, f.x1 = first, last
	fmt.Fprintf(b, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`+"\n", f.left, f.bottom, f.right, f.bottom)
	top := math.Max(math.Abs(first), math.Abs(last))
	for _, v := range tickValues(first, last, step) {
		x := f.px(v)
		fmt.Fprintf(b, `<line class="tick" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x, f.bottom, x, f.bottom+5)
		fmt.Fprintf(b, `<text class="xtick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, f.bottom+18, esc(tickLabel(v, step, top)))
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", (f.left+f.right)/2, f.bottom+36, esc(label))
	return first, last
}

// axisY draws the y axis over [lo, hi] with nice ticks and grid lines and
// returns the axis range.
func axisY(b *strings.Builder, f frame, lo, hi float64, label string) (float64, float64) {
	first, last, step := niceTicks(lo, hi, 6)
	f.y0, f.y1 = first, last
	fmt.Fprintf(b, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`+"\n", f.left, f.top, f.left, f.bottom)
	top := math.Max(math.Abs(first), math.Abs(last))
	for _, v := range tickValues(first, last, step) {
		y := f.py(v)
		fmt.Fprintf(b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, f.left, y, f.right, y)
		fmt.Fprintf(b, `<text class="ytick" x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", f.left-6, y+4, esc(tickLabel(v, step, top)))
	}
	fmt.Fprintf(b, `<text x="14" y="%.1f" text-anchor="middle" transform="rotate(-90 14 %.1f)">%s</text>`+"\n",
		(f.top+f.bottom)/2, (f.top+f.bottom)/2, esc(label))
	return first, last
}

func dashAttr(i int) string {
	d := dashes[i%len(dashes)]
	if d == "" {
		return ""
	}
	return ` stroke-dasharray="` + d + `"`
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// finitePoints drops the points with a non-finite coordinate, copying
// only when there is one.
func finitePoints(xs, ys []float64) ([]float64, []float64) {
	n := min(len(xs), len(ys))
	for i := 0; i < n; i++ {
		if finite(xs[i]) && finite(ys[i]) {
			continue
		}
		ox, oy := append([]float64(nil), xs[:i]...), append([]float64(nil), ys[:i]...)
		for j := i + 1; j < n; j++ {
			if finite(xs[j]) && finite(ys[j]) {
				ox, oy = append(ox, xs[j]), append(oy, ys[j])
			}
		}
		return ox, oy
	}
	return xs[:n], ys[:n]
}

// fmtFloat prints v with up to 4 significant digits, as the tables do.
func fmtFloat(v float64) string { return fmt.Sprintf("%.4g", v) }
