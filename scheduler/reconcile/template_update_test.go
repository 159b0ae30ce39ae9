package reconcile

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// TestTemplateChangeIsDestructive: a changed template block replaces the
// allocation (its files are rendered before the task starts), as in Nomad.
func TestTemplateChangeIsDestructive(t *testing.T) {
	a := &structs.Task{Name: "t", Driver: "raw_exec", Templates: []*structs.Template{{EmbeddedTmpl: "a", DestPath: "local/a"}}}
	b := &structs.Task{Name: "t", Driver: "raw_exec", Templates: []*structs.Template{{EmbeddedTmpl: "a", DestPath: "local/a"}}}
	if taskDestructivelyChanged(a, b) {
		t.Fatal("equal templates: destructive")
	}
	b.Templates[0].EmbeddedTmpl = "b"
	if !taskDestructivelyChanged(a, b) {
		t.Fatal("changed template: not destructive")
	}
}
