package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/sim/report"
)

// The human report gives the leader's CPU time per allocation when the run
// measured it, and leaves the line out when it did not.
func TestPrintFullReportLeaderCPU(t *testing.T) {
	r := &report.Report{Mode: "full", WallTime: 10 * time.Second, Placements: 4000,
		Server: &report.ServerStats{Servers: 1, Nodes: 100, CPUSeconds: 2}}
	var out strings.Builder
	printFullReport(&Meta{Out: &out, Err: &out}, r)
	if !strings.Contains(out.String(), "Leader CPU       = 2.0 s (0.50 ms per allocation)") {
		t.Fatalf("no CPU line:\n%s", out.String())
	}
	r.Server.CPUSeconds = 0
	out.Reset()
	printFullReport(&Meta{Out: &out, Err: &out}, r)
	if strings.Contains(out.String(), "Leader CPU") {
		t.Fatalf("CPU line without a measure:\n%s", out.String())
	}
}
