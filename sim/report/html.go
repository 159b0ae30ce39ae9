package report

import (
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
	"time"
)

// ErrNoRuns is WriteHTML's answer when it is given no report.
var ErrNoRuns = errors.New("report: no run to render")

//go:embed page.html.tmpl
var pageSource string

var pageTemplate = template.Must(template.New("page").Parse(pageSource))

// page is what the template renders: a title and sections in order.
type page struct {
	Title, Subtitle string
	Sections        []section
}

// section is one heading of the report with its charts (already
// rendered, escaped SVG), tables and lists.
type section struct {
	ID, Heading string
	Note        string
	Charts      []figure
	Tables      []table
	Lists       []list
}

// figure is a chart with its visible caption; SVG is escaped by the
// chart writers (svg.go), hence trusted here.
type figure struct {
	Caption string
	SVG     template.HTML
}

type table struct {
	Caption string
	Head    []string
	Rows    []row
}

// row is a table row: a header cell, one cell per run, and Mark when the
// runs' values differ (highlighted).
type row struct {
	Head  string
	Cells []string
	Mark  bool
}

type list struct {
	Caption string
	Items   []string
}

// WriteHTML writes runs as one self-contained HTML page: inline CSS and
// SVG plots, no script and no external resource, so it can be mailed or
// opened offline. One run is a report; two or more are a comparison on
// the same trace (each later run's deltas against the first, as Compare).
// It reads the reports only; the error is ErrNoRuns, a nil run, or w's.
func WriteHTML(w io.Writer, runs ...*Report) error {
	if len(runs) == 0 {
		return ErrNoRuns
	}
	for i, r := range runs {
		if r == nil {
			return fmt.Errorf("report: run %s is nil", runLetter(i))
		}
	}
	return pageTemplate.Execute(w, buildPage(runs))
}

func buildPage(runs []*Report) page {
	p := page{Title: "nomadish sim report"}
	if len(runs) == 1 {
		p.Subtitle = fmt.Sprintf("One %s-mode run: %s of simulated time in %s.",
			modeName(runs[0]), fmtDur(runs[0].SimulatedTime), fmtDur(runs[0].WallTime))
	} else {
		p.Title = fmt.Sprintf("nomadish sim comparison of %d runs", len(runs))
		p.Subtitle = "Runs " + strings.Join(runNames(runs), ", ") +
			"; lines of run A are solid, later runs dashed."
	}
	c := &chartIDs{}
	p.Sections = append(p.Sections, configSection(runs), totalsSection(runs))
	p.Sections = append(p.Sections, utilizationSection(runs, c), allocsSection(runs, c),
		throughputSection(runs, c), latencySection(runs, c), conflictsSection(runs, c))
	if len(runs) > 1 {
		p.Sections = append(p.Sections, deltasSection(runs))
	}
	if s, ok := serverSection(runs); ok {
		p.Sections = append(p.Sections, s)
	}
	return p
}

// chartIDs hands out the page-unique ids the SVGs' aria references need.
type chartIDs struct{ n int }

func (c *chartIDs) next() string {
	c.n++
	return fmt.Sprintf("chart%d", c.n)
}

func runLetter(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("R%d", i+1)
}

func runNames(runs []*Report) []string {
	out := make([]string, len(runs))
	for i := range runs {
		out[i] = runLetter(i)
	}
	return out
}

// runHead is a table's header row: the first column's name, then the runs.
func runHead(first string, runs []*Report) []string {
	if len(runs) == 1 {
		return []string{first, "value"}
	}
	head := []string{first}
	for i := range runs {
		head = append(head, "run "+runLetter(i))
	}
	return head
}

// perRun builds a row from one formatted value per run.
func perRun(head string, runs []*Report, get func(*Report) string) row {
	r := row{Head: head}
	for i, run := range runs {
		v := get(run)
		r.Cells = append(r.Cells, v)
		if i > 0 && v != r.Cells[0] {
			r.Mark = true
		}
	}
	return r
}

func modeName(r *Report) string {
	if r.Mode == "" {
		return "unknown"
	}
	return r.Mode
}

func configSection(runs []*Report) section {
	keys := map[string]bool{}
	for _, r := range runs {
		for k := range r.Config {
			keys[k] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	t := table{Caption: "Configuration", Head: runHead("setting", runs)}
	t.Rows = append(t.Rows, perRun("mode", runs, modeName))
	for _, k := range sorted {
		t.Rows = append(t.Rows, perRun(k, runs, func(r *Report) string {
			if v, ok := r.Config[k]; ok {
				return v
			}
			return "-"
		}))
	}
	s := section{ID: "config", Heading: "Configuration", Tables: []table{t}}
	if len(runs) > 1 {
		s.Note = "Highlighted rows differ between the runs."
	}
	return s
}

func totalsSection(runs []*Report) section {
	count := func(get func(*Report) int) func(*Report) string {
		return func(r *Report) string { return fmt.Sprint(get(r)) }
	}
	t := table{Caption: "Totals over the run", Head: runHead("measure", runs)}
	t.Rows = []row{
		perRun("simulated time", runs, func(r *Report) string { return fmtDur(r.SimulatedTime) }),
		perRun("wall time", runs, func(r *Report) string { return fmtDur(r.WallTime) }),
		perRun("speed-up (simulated / wall)", runs, func(r *Report) string {
			if r.WallTime <= 0 || r.SimulatedTime <= 0 {
				return "-"
			}
			return fmtFloat(float64(r.SimulatedTime)/float64(r.WallTime)) + "x"
		}),
		perRun("jobs", runs, count(func(r *Report) int { return r.Jobs })),
		perRun("placements", runs, count(func(r *Report) int { return r.Placements })),
		perRun("rejections", runs, count(func(r *Report) int { return r.Rejections })),
		perRun("preemptions", runs, count(func(r *Report) int { return r.Preemptions })),
		perRun("evictions (node failures)", runs, count(func(r *Report) int { return r.Evictions })),
		perRun("blocked evaluations at peak", runs, count(func(r *Report) int { return r.BlockedEvalsPeak })),
	}
	first := table{Caption: "Utilization at the first rejected placement", Head: runHead("resource", runs)}
	at := func(get func(Sample) float64) func(*Report) string {
		return func(r *Report) string {
			if r.AtFirstRejection == nil {
				return "none rejected"
			}
			return fmtPct(get(*r.AtFirstRejection))
		}
	}
	first.Rows = []row{
		perRun("cpu", runs, at(func(s Sample) float64 { return s.CPU })),
		perRun("memory", runs, at(func(s Sample) float64 { return s.Memory })),
		perRun("cores", runs, at(func(s Sample) float64 { return s.Cores })),
		perRun("at simulated time", runs, func(r *Report) string {
			if r.AtFirstRejection == nil {
				return "-"
			}
			return fmtDur(r.AtFirstRejection.Time)
		}),
	}
	return section{ID: "totals", Heading: "Totals", Tables: []table{t, first}}
}

// fmtDur rounds d to three or four significant figures.
func fmtDur(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d >= time.Hour:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(time.Microsecond).String()
	}
	return d.String()
}

func fmtPct(share float64) string { return fmt.Sprintf("%.1f%%", 100*share) }

// fmtBytes prints n in binary units (KiB, MiB, GiB).
func fmtBytes(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", n)
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}
