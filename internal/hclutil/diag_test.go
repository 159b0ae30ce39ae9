package hclutil

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func TestDiagError(t *testing.T) {
	r := &hcl.Range{Filename: "f.hcl", Start: hcl.Pos{Line: 3, Column: 7}}
	err := DiagError(hcl.Diagnostics{
		{Severity: hcl.DiagError, Summary: "Unsupported argument", Detail: `An argument named "comand" is not expected here.`, Subject: r},
		{Severity: hcl.DiagWarning, Summary: "ignored"},
		{Severity: hcl.DiagError, Summary: "no place"},
	})
	want := "f.hcl:3:7: Unsupported argument; An argument named \"comand\" is not expected here.\nno place"
	if err == nil || err.Error() != want {
		t.Fatalf("DiagError = %q, want %q", err, want)
	}
}
