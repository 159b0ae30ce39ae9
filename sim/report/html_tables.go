package report

import (
	"fmt"
	"html/template"
	"strings"
)

// conflictsSection shows plan conflicts and retries per run and its
// worker count: run the same trace at 1, 2, 4, 8 workers and compare to
// see what optimistic concurrency costs (the Omega question).
func conflictsSection(runs []*Report, ids *chartIDs) section {
	s := section{ID: "conflicts", Heading: "Plan conflicts and retries",
		Note: "A plan conflict is a plan the applier partly rejected; each one costs the scheduler a retry with fresh state."}
	t := table{Caption: "Optimistic concurrency", Head: runHead("measure", runs)}
	per1000 := func(n int) func(*Report) string {
		return func(r *Report) string {
			if r.Placements == 0 {
				return "-"
			}
			return fmtFloat(1000 * float64(n) / float64(r.Placements))
		}
	}
	t.Rows = []row{
		perRun("workers", runs, func(r *Report) string { return fmt.Sprint(r.Workers) }),
		perRun("plan conflicts", runs, func(r *Report) string { return fmt.Sprint(r.PlanConflicts) }),
		perRun("retries", runs, func(r *Report) string { return fmt.Sprint(r.Retries) }),
		perRun("conflicts per 1000 placements", runs, func(r *Report) string { return per1000(r.PlanConflicts)(r) }),
		perRun("retries per 1000 placements", runs, func(r *Report) string { return per1000(r.Retries)(r) }),
	}
	s.Tables = []table{t}
	bc := barChart{ID: ids.next(), Title: "Plan conflicts and retries by run", YLabel: "count", Width: 400}
	conflicts := barSeries{Name: "plan conflicts", Color: 0}
	retries := barSeries{Name: "retries", Color: 1}
	var desc []string
	for i, r := range runs {
		cat := fmt.Sprintf("%d workers", r.Workers)
		if len(runs) > 1 {
			cat = runLetter(i) + ": " + cat
		}
		bc.Categories = append(bc.Categories, cat)
		conflicts.Values = append(conflicts.Values, float64(r.PlanConflicts))
		retries.Values = append(retries.Values, float64(r.Retries))
		desc = append(desc, fmt.Sprintf("%s: %d conflicts, %d retries", cat, r.PlanConflicts, r.Retries))
	}
	bc.Series = []barSeries{conflicts, retries}
	bc.Desc = "Plan conflicts and retries. " + strings.Join(desc, "; ") + "."
	s.Charts = []figure{{Caption: bc.Title, SVG: template.HTML(bc.svg())}}
	tables, figs := sweepParts(runs, ids)
	s.Tables, s.Charts = append(s.Tables, tables...), append(s.Charts, figs...)
	return s
}

// deltasSection is Compare of each later run against the first.
func deltasSection(runs []*Report) section {
	s := section{ID: "deltas", Heading: "Comparison",
		Note: "Change is the later run's value relative to run A's (- when run A's is 0)."}
	for i, r := range runs[1:] {
		b := runLetter(i + 1)
		t := table{Caption: "Run " + b + " against run A", Head: []string{"measure", "run A", "run " + b, "change"}}
		for _, d := range Compare(runs[0], r) {
			change := "-"
			if d.A != 0 {
				change = fmt.Sprintf("%+.1f%%", 100*d.Change)
			}
			t.Rows = append(t.Rows, row{Head: d.Name, Cells: []string{fmtFloat(d.A), fmtFloat(d.B), change},
				Mark: d.A != d.B})
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

// serverSection is the measured server of full-mode runs, if any.
func serverSection(runs []*Report) (section, bool) {
	any := false
	for _, r := range runs {
		any = any || r.Server != nil
	}
	if !any {
		return section{}, false
	}
	srv := func(get func(*ServerStats) string) func(*Report) string {
		return func(r *Report) string {
			if r.Server == nil {
				return "-"
			}
			return get(r.Server)
		}
	}
	t := table{Caption: "Server (full mode)", Head: runHead("measure", runs)}
	t.Rows = []row{
		perRun("servers", runs, srv(func(s *ServerStats) string { return fmt.Sprint(s.Servers) })),
		perRun("simulated nodes", runs, srv(func(s *ServerStats) string { return fmt.Sprint(s.Nodes) })),
		perRun("resident memory (RSS)", runs, srv(func(s *ServerStats) string { return fmtBytes(float64(s.RSSBytes)) })),
		perRun("RSS per 100k allocations", runs, srv(func(s *ServerStats) string { return fmtBytes(float64(s.RSSPer100kAllocs)) })),
		perRun("raft log", runs, srv(func(s *ServerStats) string { return fmtBytes(float64(s.RaftLogBytes)) })),
		perRun("raft snapshot", runs, srv(func(s *ServerStats) string { return fmtBytes(float64(s.SnapshotBytes)) })),
		perRun("heartbeats per second", runs, srv(func(s *ServerStats) string { return fmtFloat(s.HeartbeatsPerSec) })),
		perRun("leader CPU seconds", runs, srv(func(s *ServerStats) string { return fmtFloat(s.CPUSeconds) })),
	}
	s := section{ID: "server", Heading: "Server", Tables: []table{t}}
	for i, r := range runs {
		if r.Server == nil || len(r.Server.Profile) == 0 {
			continue
		}
		caption := "Where the time went (CPU profile, top functions)"
		if len(runs) > 1 {
			caption += ", run " + runLetter(i)
		}
		s.Lists = append(s.Lists, list{Caption: caption, Items: r.Server.Profile})
	}
	return s, true
}
