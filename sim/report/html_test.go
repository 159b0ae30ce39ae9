package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"html"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
)

// sampleRun is a fast-mode day with known samples: utilization climbing
// linearly to cpu 80%, memory 60%, cores 100%, a sample every step.
func sampleRun(step time.Duration) *Report {
	r := &Report{Mode: "fast", Workers: 4, Jobs: 50, Placements: 1000, Rejections: 3, PlanConflicts: 12, Retries: 13,
		SimulatedTime: 24 * time.Hour, WallTime: 40 * time.Second, BlockedEvalsPeak: 6,
		Config:           map[string]string{"workers": "4", "trace": "google2019 seed 7", "nodes": "5000"},
		QueueDelay:       Percentiles{Count: 100, P50: time.Millisecond, P90: 5 * time.Millisecond, P99: 20 * time.Millisecond, Max: 80 * time.Millisecond},
		PlacementLatency: Percentiles{Count: 100, P50: 3 * time.Millisecond, P90: 9 * time.Millisecond, P99: 30 * time.Millisecond, Max: 120 * time.Millisecond},
		AtFirstRejection: &Sample{Time: 20 * time.Hour, CPU: 0.7, Memory: 0.5, Cores: 0.9},
	}
	n := int(24 * time.Hour / step)
	for i := 0; i <= n; i++ {
		f := float64(i) / float64(n)
		at := time.Duration(i) * step
		r.Utilization = append(r.Utilization, Sample{Time: at, CPU: 0.8 * f, Memory: 0.6 * f, Cores: f,
			StrandedCores: i % 37, RunningAllocs: i, PendingAllocs: i % 5, BlockedEvals: i % 7, NodesAvailable: 5000})
		r.Throughput = append(r.Throughput, Rate{At: at, Placed: i, PerSecond: 3000 + float64(i%100)})
	}
	return r
}

func render(t *testing.T, runs ...*Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, runs...); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// parseStrict parses the page (doctype stripped) as strict XML and
// returns its elements' names in document order.
func parseStrict(t *testing.T, page string) []string {
	t.Helper()
	page, ok := strings.CutPrefix(page, "<!DOCTYPE html>\n")
	if !ok {
		t.Fatalf("page does not start with the HTML5 doctype: %.40q", page)
	}
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = true
	var names []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			names = append(names, se.Name.Local)
		}
	}
}

func TestWriteHTMLValidDocument(t *testing.T) {
	page := render(t, sampleRun(time.Minute))
	names := parseStrict(t, page)
	count := map[string]int{}
	for _, n := range names {
		count[n]++
	}
	if count["html"] != 1 || count["title"] < 1 || count["table"] < 5 {
		t.Errorf("elements %v", count)
	}
	// Every chart is labelled: one <title> and one <desc> per <svg> (the
	// other titles are the page's and the tooltips of lines and bars).
	if count["svg"] < 8 || count["desc"] != count["svg"] {
		t.Errorf("%d svgs, %d descs", count["svg"], count["desc"])
	}
	for _, name := range []string{"cpu", "memory", "cores", "stranded cores", "running", "pending",
		"blocked evals", "nodes available", "placements/s", "plan conflicts", "retries"} {
		if !strings.Contains(page, ">"+name+"</text>") {
			t.Errorf("no legend entry %q", name)
		}
	}
	for _, want := range []string{"Queue delay", "Placement latency", "google2019 seed 7", "70.0%"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, `id="server"`) {
		t.Error("a server section without server stats")
	}
}

func TestWriteHTMLServerStatsAndNoURLs(t *testing.T) {
	r := sampleRun(time.Hour)
	r.Mode = "full"
	r.Server = &ServerStats{Servers: 3, Nodes: 10000, RSSBytes: 3 << 30, RSSPer100kAllocs: 300 << 20,
		RaftLogBytes: 2 << 30, SnapshotBytes: 700 << 20, HeartbeatsPerSec: 1000, CPUSeconds: 96.5,
		Profile: []string{"raft.(*Raft).runLeader 12%", "state.(*Store).UpsertAllocs 9%"}}
	page := render(t, r)
	parseStrict(t, page)
	for _, want := range []string{"Server (full mode)", "3.0 GiB", "300.0 MiB", "2.0 GiB", "700.0 MiB", "1000",
		"state.(*Store).UpsertAllocs 9%", "wall time (", "leader CPU seconds", "96.5"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, url := range []string{"http://", "https://", "src=", "<script", "<link"} {
		if strings.Contains(strings.ToLower(page), url) {
			t.Errorf("page contains %q: it must be self-contained", url)
		}
	}
}

func TestWriteHTMLEscapesText(t *testing.T) {
	r := sampleRun(time.Hour)
	r.Config["trace"] = `<script>alert("x")</script>`
	r.Config[`<b>key</b>`] = "v & w"
	r.Server = &ServerStats{Profile: []string{"<img src=x onerror=alert(1)>"}}
	page := render(t, r)
	parseStrict(t, page)
	for _, bad := range []string{"<script", "<b>", "<img"} {
		if strings.Contains(page, bad) {
			t.Errorf("%q reached the page as markup", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;", "&lt;b&gt;key&lt;/b&gt;", "v &amp; w", "&lt;img src=x"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks the escaped %q", want)
		}
	}
}

func TestWriteHTMLComparison(t *testing.T) {
	a, b := sampleRun(time.Hour), sampleRun(time.Hour)
	b.Config["workers"], b.Workers = "8", 8
	b.Placements, b.PlanConflicts = 1500, 0
	page := render(t, a, b)
	parseStrict(t, page)
	for _, want := range []string{"comparison of 2 runs", "Run B against run A", "placements", "+50.0%",
		"plan_conflicts", "-100.0%", "A: cpu", "B: cpu", "run A", "run B", `class="differs"`, "8 workers"} {
		if !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// B's lines are dashed; A's are not.
	if !strings.Contains(page, `stroke-dasharray="6 4" points=`) {
		t.Error("run B's lines are not dashed")
	}
	if page != render(t, a, b) {
		t.Error("two renderings of the same runs differ")
	}
}

func TestWriteHTMLDownsamplesLongRuns(t *testing.T) {
	page := render(t, sampleRun(time.Second)) // 86,401 samples
	parseStrict(t, page)
	points := regexp.MustCompile(`points="([^"]*)"`).FindAllStringSubmatch(page, -1)
	if len(points) < 8 {
		t.Fatalf("%d polylines", len(points))
	}
	for _, p := range points {
		if n := len(strings.Fields(p[1])); n > maxPoints {
			t.Errorf("a line of %d points, want <= %d", n, maxPoints)
		}
	}
	if len(page) > 1<<20 {
		t.Errorf("page of %d bytes for a 24 h run", len(page))
	}
}

func TestWriteHTMLWithoutSamples(t *testing.T) {
	page := render(t, &Report{Mode: "full"})
	parseStrict(t, page)
	if !strings.Contains(page, "No samples recorded for: Share allocated") {
		t.Error("empty charts are not named as such")
	}
}

func TestWriteHTMLErrors(t *testing.T) {
	if err := WriteHTML(io.Discard); !errors.Is(err, ErrNoRuns) {
		t.Errorf("no runs: %v", err)
	}
	if err := WriteHTML(io.Discard, &Report{}, nil); err == nil || !strings.Contains(err.Error(), "run B") {
		t.Errorf("nil run: %v", err)
	}
}

// BenchmarkWriteHTML renders a 24 h run sampled every second (86,401
// samples, downsampled to 600 points a line) and reports the page size.
func BenchmarkWriteHTML(b *testing.B) {
	r := sampleRun(time.Second)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := WriteHTML(&buf, r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes/page")
}

// TestWriteHTMLOddValues: non-finite and negative values neither break
// the page nor reach it as "NaN" coordinates.
func TestWriteHTMLOddValues(t *testing.T) {
	r := sampleRun(time.Hour)
	r.Utilization[3].CPU = math.NaN()
	r.Utilization[4].Memory = math.Inf(1)
	r.Throughput[2].PerSecond = -5
	r.Throughput[5].PerSecond = math.NaN()
	page := render(t, r)
	parseStrict(t, page)
	if strings.Contains(page, "NaN") || strings.Contains(page, "Inf") {
		t.Error("a non-finite value reached the page")
	}
}
