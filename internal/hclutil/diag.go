package hclutil

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Pos is a range's start as "file:line:col", the place every HCL error of
// nomadish names.
func Pos(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// DiagError turns the error diagnostics into one error, one per line, each
// "file:line:col: summary; detail" (the place left out when a diagnostic
// has none). Warnings are dropped.
func DiagError(diags hcl.Diagnostics) error {
	var lines []string
	for _, dg := range diags {
		if dg.Severity != hcl.DiagError {
			continue
		}
		msg := dg.Summary
		if dg.Detail != "" {
			msg += "; " + dg.Detail
		}
		if dg.Subject != nil {
			msg = Pos(*dg.Subject) + ": " + msg
		}
		lines = append(lines, msg)
	}
	return errors.New(strings.Join(lines, "\n"))
}
