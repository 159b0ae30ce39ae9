package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/sim/report"
)

func writeSimReport(t *testing.T, dir, name string, r *report.Report) string {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSimReportCommand(t *testing.T) {
	dir := t.TempDir()
	run := func(workers int, placements int) *report.Report {
		r := &report.Report{Mode: "fast", Workers: workers, Placements: placements,
			Config: map[string]string{"workers": fmt.Sprint(workers)}}
		for i := 0; i < 10; i++ {
			r.Utilization = append(r.Utilization, report.Sample{Time: time.Duration(i) * time.Minute, CPU: float64(i) / 10})
		}
		return r
	}
	a := writeSimReport(t, dir, "a.json", run(1, 100))
	b := writeSimReport(t, dir, "b.json", run(4, 150))
	out := filepath.Join(dir, "out.html")

	code, stdout, stderr := runCLI(nil, "sim", "report", "-o", out, a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "Run B against run A") || !strings.Contains(stdout, "2 run(s)") {
		t.Errorf("stdout %q; page without the comparison", stdout)
	}

	code, stdout, _ = runCLI(nil, "sim", "report", a)
	if code != 0 || !strings.HasPrefix(stdout, "<!DOCTYPE html>") || strings.Contains(stdout, "Run B") {
		t.Errorf("one run to stdout: exit %d, %.60q", code, stdout)
	}
}

func TestSimReportCommandBadInput(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "takes one report file"},
		{[]string{filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{file("syntax.json", "{\n  \"mode\": \"fast\",\n  \"jobs\": 3,,\n}")}, "syntax.json:3:"},
		{[]string{file("type.json", "{\"mode\": \"fast\",\n \"placements\": \"many\"}")}, `type.json:2:`},
		{[]string{file("type.json", "{\"mode\": \"fast\",\n \"placements\": \"many\"}")}, `field "placements"`},
		{[]string{file("trace.json", `{"source": "x", "jobs": []}`)}, `unknown field "source"`},
		{[]string{file("nomode.json", `{"placements": 3}`)}, `no "mode" field`},
		{[]string{file("empty.json", ``)}, "empty file"},
		{[]string{file("two.json", `{"mode": "fast"} {"mode": "fast"}`)}, "two.json:1:18: data after"},
	} {
		code, _, stderr := runCLI(nil, append([]string{"sim", "report"}, c.args...)...)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("sim report %v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}
