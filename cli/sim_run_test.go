package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/sim/report"
	"github.com/nomadish/nomadish/sim/trace"
)

// simTraceFile writes a small JSON trace and points readTrace at a JSON
// decoder for the test (sim/trace.Read is wired at merge).
func simTraceFile(t *testing.T) string {
	t.Helper()
	tr := trace.Trace{Source: "cli test"}
	for i := range 20 {
		tr.Jobs = append(tr.Jobs, trace.Job{ID: fmt.Sprintf("j%d", i), Arrival: time.Duration(i) * time.Second,
			Type: "batch", Priority: 50, Count: 3, CPU: 500, MemoryMB: 256, Duration: 10 * time.Minute})
	}
	data, _ := json.Marshal(tr)
	path := filepath.Join(t.TempDir(), "trace.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	old := readTrace
	readTrace = func(p string) (*trace.Trace, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var out trace.Trace
		return &out, json.Unmarshal(b, &out)
	}
	t.Cleanup(func() { readTrace = old })
	return path
}

func TestSimRunJSON(t *testing.T) {
	path := simTraceFile(t)
	code, out, errOut := runCLI(nil, "sim", "run", "-nodes", "10", "-topology", "1x8@2000MHz/16GiB",
		"-trace", path, "-duration", "1h", "-workers", "2", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not one JSON report: %v\n%s", err, out)
	}
	if r.Mode != "fast" || r.Placements != 60 || r.Workers != 2 || r.Config["nodes"] != "10" {
		t.Fatalf("report %+v", r)
	}
}

func TestSimRunCompare(t *testing.T) {
	path := simTraceFile(t)
	code, out, errOut := runCLI(nil, "sim", "run", "-nodes", "10", "-trace", path, "-duration", "1h",
		"-compare", "workers=4,algorithm=spread")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Compared with:", "measure", "placements", "queue_delay_p99_ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSimRunBadFlags(t *testing.T) {
	path := simTraceFile(t)
	cases := map[string][]string{
		"-topology":     {"-topology", "2by32", "-trace", path},
		"-generate":     {"-generate", "yahoo", "-nodes", "5"},
		"no workload":   {"-nodes", "5"},
		"give one":      {"-trace", path, "-generate", "google2019"},
		"algorithm":     {"-trace", path, "-algorithm", "random"},
		"workers":       {"-trace", path, "-workers", "0"},
		"unknown key":   {"-trace", path, "-compare", "colour=blue"},
		"nodes = 0":     {"-trace", path, "-nodes", "0"},
		"-cluster":      {"-cluster", "/nonexistent.json", "-trace", path},
		"-duration":     {"-trace", path, "-duration", "-1h"},
		"no arguments":  {"-trace", path, "extra"},
		"invalid value": {"-nodes", "many"},
		"-load":         {"-generate", "google2019", "-load", "0"},
	}
	for want, args := range cases {
		code, _, errOut := runCLI(nil, append([]string{"sim", "run"}, args...)...)
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", args, code, errOut, want)
		}
	}
}

func TestSimRunWritesTheHTMLReport(t *testing.T) {
	path := simTraceFile(t)
	old := writeHTML
	t.Cleanup(func() { writeHTML = old })
	var runs int
	writeHTML = func(w io.Writer, rs ...*report.Report) error {
		runs = len(rs)
		_, err := io.WriteString(w, "<html>"+rs[0].Mode+"</html>")
		return err
	}
	out := filepath.Join(t.TempDir(), "r.html")
	code, _, errOut := runCLI(nil, "sim", "run", "-nodes", "5", "-trace", path, "-duration", "30m",
		"-report", out, "-compare", "workers=2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "<html>fast</html>" || runs != 2 {
		t.Fatalf("report file %q (%v), %d runs; want both runs written", b, err, runs)
	}
}
