package hclutil

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"
)

// astDepth is the deepest chain of nodes in a parsed body.
type astDepth struct{ cur, max int }

func (w *astDepth) Enter(hclsyntax.Node) hcl.Diagnostics {
	w.cur++
	w.max = max(w.max, w.cur)
	return nil
}

func (w *astDepth) Exit(hclsyntax.Node) hcl.Diagnostics {
	w.cur--
	return nil
}

// fuzzMaxDepth is small so that short inputs can go over it.
const fuzzMaxDepth = 16

// FuzzCheckDepth holds CheckDepth to its promise: whatever it accepts,
// hcl/v2 parses into a syntax tree whose depth is bounded by a small
// multiple of the limit (so the parser, walkers and evaluator recurse
// boundedly); nothing panics.
func FuzzCheckDepth(f *testing.F) {
	for _, s := range []string{
		"a = " + nest("(", "1", ")", 80000),
		`a = "${` + nest("[", "1", "]", 40) + `}"`,
		"x = <<EOT\n${(((1)))}\nEOT\n",
		"a = " + strings.Repeat("-", 40) + "1",
		"a = 1" + strings.Repeat("+1", 40),
		`a = "` + strings.Repeat("%{for x in y}", 40) + `"`,
		"job \"x\" {\n  group \"g\" {\n    count = 1 # (\n  }\n}\n",
		`locals { x = length(setproduct(range(300),range(300),range(300))) }`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if CheckDepth(src, "f.hcl", fuzzMaxDepth).HasErrors() {
			return
		}
		file, _ := hclsyntax.ParseConfig(src, "f.hcl", hcl.InitialPos)
		if file == nil || file.Body == nil {
			return
		}
		w := &astDepth{}
		hclsyntax.Walk(file.Body.(*hclsyntax.Body), w)
		if bound := 6*fuzzMaxDepth + 8; w.max > bound {
			t.Fatalf("accepted at limit %d, but the syntax tree is %d deep (bound %d)", fuzzMaxDepth, w.max, bound)
		}
	})
}

// FuzzCheckJSONDepth: what CheckJSONDepth accepts, hcl/v2's JSON parser
// parses without crashing.
func FuzzCheckJSONDepth(f *testing.F) {
	f.Add([]byte(nest("[", "1", "]", 80000)))
	f.Add([]byte(`{"a": "${` + nest("(", "1", ")", 40) + `}"}`))
	f.Add([]byte(`{"job": {"x": {"group": {"g": {"count": 1}}}}}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		if CheckJSONDepth(src, "f.json", fuzzMaxDepth).HasErrors() {
			return
		}
		hcljson.Parse(src, "f.json")
	})
}
