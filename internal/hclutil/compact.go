package hclutil

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// MaxDiagnostics is how many diagnostics Compact keeps.
const MaxDiagnostics = 50

// Compact drops repeated diagnostics (same severity, summary, detail and
// position: a for expression reports a failing body once per element) and
// keeps the first max (MaxDiagnostics when max <= 0) errors, ending with
// one that says how many more there were. Warnings are kept, deduplicated.
func Compact(diags hcl.Diagnostics, max int) hcl.Diagnostics {
	if max <= 0 {
		max = MaxDiagnostics
	}
	type key struct {
		sev             hcl.DiagnosticSeverity
		summary, detail string
		rng             hcl.Range
	}
	seen := map[key]bool{}
	out := make(hcl.Diagnostics, 0, len(diags))
	errs, dropped := 0, 0
	var last *hcl.Diagnostic
	for _, d := range diags {
		k := key{sev: d.Severity, summary: d.Summary, detail: d.Detail}
		if d.Subject != nil {
			k.rng = *d.Subject
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		if d.Severity == hcl.DiagError {
			if errs == max {
				dropped++
				continue
			}
			errs++
			last = d
		}
		out = append(out, d)
	}
	if dropped > 0 {
		more := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Too many errors",
			Detail: fmt.Sprintf("%d more errors were not shown.", dropped), Subject: last.Subject}
		out = append(out, more)
	}
	return out
}
