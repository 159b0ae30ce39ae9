package report

import (
	"fmt"
	"html/template"
	"strings"
)

// sweepParts renders each run's worker sweep (Report.WorkerSweep), if
// any: a table with one row per worker count, a bar chart of conflicts
// and retries and a line chart of the p99 delays against the workers.
func sweepParts(runs []*Report, ids *chartIDs) ([]table, []figure) {
	var tables []table
	var figs []figure
	for i, r := range runs {
		if len(r.WorkerSweep) == 0 {
			continue
		}
		suffix := ""
		if len(runs) > 1 {
			suffix = ", run " + runLetter(i)
		}
		t := table{Caption: "Worker sweep: the same trace once per worker count" + suffix,
			Head: []string{"workers", "plan conflicts", "retries", "queue delay p50", "queue delay p99",
				"placement latency p50", "placement latency p99"}}
		bc := barChart{ID: ids.next(), Title: "Plan conflicts and retries by worker count" + suffix, YLabel: "count", Width: 400}
		conflicts := barSeries{Name: "plan conflicts", Color: 0}
		retries := barSeries{Name: "retries", Color: 1}
		queue := lineSeries{Name: "queue delay p99", Color: 2}
		place := lineSeries{Name: "placement latency p99", Color: 3, Dash: 1}
		var desc, ldesc []string
		for _, p := range r.WorkerSweep {
			t.Rows = append(t.Rows, row{Head: fmt.Sprint(p.Workers), Cells: []string{
				fmt.Sprint(p.PlanConflicts), fmt.Sprint(p.Retries),
				fmtDur(p.QueueDelay.P50), fmtDur(p.QueueDelay.P99),
				fmtDur(p.PlacementLatency.P50), fmtDur(p.PlacementLatency.P99)}})
			cat := fmt.Sprintf("%d workers", p.Workers)
			bc.Categories = append(bc.Categories, cat)
			conflicts.Values = append(conflicts.Values, float64(p.PlanConflicts))
			retries.Values = append(retries.Values, float64(p.Retries))
			desc = append(desc, fmt.Sprintf("%s: %d conflicts, %d retries", cat, p.PlanConflicts, p.Retries))
			q, pl := p.QueueDelay.P99.Seconds()*1000, p.PlacementLatency.P99.Seconds()*1000
			queue.X, queue.Y = append(queue.X, float64(p.Workers)), append(queue.Y, q)
			place.X, place.Y = append(place.X, float64(p.Workers)), append(place.Y, pl)
			ldesc = append(ldesc, fmt.Sprintf("%s: queue delay p99 %s ms, placement latency p99 %s ms", cat, fmtFloat(q), fmtFloat(pl)))
		}
		bc.Series = []barSeries{conflicts, retries}
		bc.Desc = "Worker sweep. " + strings.Join(desc, "; ") + "."
		lc := lineChart{ID: ids.next(), Title: "p99 delays by worker count" + suffix, XLabel: "workers", YLabel: "ms",
			Desc: "Worker sweep. " + strings.Join(ldesc, "; ") + ".", Series: []lineSeries{queue, place}}
		tables = append(tables, t)
		figs = append(figs, figure{Caption: bc.Title, SVG: template.HTML(bc.svg())},
			figure{Caption: lc.Title, SVG: template.HTML(lc.svg())})
	}
	return tables, figs
}
