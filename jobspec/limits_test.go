package jobspec

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/internal/hclutil"
)

func parens(n int) string { return strings.Repeat("(", n) + "1" + strings.Repeat(")", n) }

const tinyJob = `
variable "l" {
  type    = list(number)
  default = []
}
job "x" {
  group "g" {
    task "t" {
      driver = "exec"
    }
  }
}
`

// wantParseError parses cfg and wants an *Error whose message holds each of
// wants.
func wantParseError(t *testing.T, cfg *ParseConfig, wants ...string) {
	t.Helper()
	_, err := Parse(cfg)
	var perr *Error
	if !errors.As(err, &perr) {
		t.Fatalf("err = %v, want a *jobspec.Error", err)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("error %q does not contain %q", err, w)
		}
	}
}

// TestDeepNestingRefused: every HCL input of a parse (job file, var file
// in HCL and JSON, var content, -var and NOMAD_VAR_ values) nesting deeper
// than the limit is an error naming its place, never a stack overflow.
func TestDeepNestingRefused(t *testing.T) {
	deepJob := "job \"x\" {\n  priority = " + parens(80000) + "\n}\n"
	wantParseError(t, &ParseConfig{Path: "deep.nomad.hcl", Body: []byte(deepJob)},
		"deep.nomad.hcl:2:269: Nesting too deep", "256 levels")

	dir := t.TempDir()
	hclVars, jsonVars := dir+"/v.hcl", dir+"/v.json"
	writeFile(t, hclVars, "l = "+strings.Repeat("[", 80000)+strings.Repeat("]", 80000)+"\n")
	writeFile(t, jsonVars, `{"l": `+strings.Repeat("[", 80000)+strings.Repeat("]", 80000)+"}")
	wantParseError(t, &ParseConfig{Path: "j.hcl", Body: []byte(tinyJob), VarFiles: []string{hclVars}}, hclVars+":1:", "Nesting too deep")
	wantParseError(t, &ParseConfig{Path: "j.hcl", Body: []byte(tinyJob), VarFiles: []string{jsonVars}}, jsonVars+":1:", "Nesting too deep")
	wantParseError(t, &ParseConfig{Path: "j.hcl", Body: []byte(tinyJob), VarContent: []byte("l = [" + parens(80000) + "]")},
		"<var content>:1:", "Nesting too deep")
	wantParseError(t, &ParseConfig{Path: "j.hcl", Body: []byte(tinyJob), ArgVars: []string{"l=[" + parens(80000) + "]"}},
		"<value for var.l>:1,257", "Nesting too deep")
	wantParseError(t, &ParseConfig{Path: "j.hcl", Body: []byte(tinyJob), Envs: []string{"NOMAD_VAR_l=[" + parens(80000) + "]"}},
		"<value for var.l>:1,257", "Nesting too deep")
}

// TestTooLargeValuesRefused: function results, for expressions, template
// interpolations and values built up through locals are refused with a
// diagnostic at the expression once they would pass the limits.
func TestTooLargeValuesRefused(t *testing.T) {
	job := func(locals string) []byte {
		return []byte("locals {\n" + locals + "\n}\n" + tinyJob)
	}
	doubling := func(first, step string, n int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "  a0 = %s\n", first)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "  a%d = %s\n", i, strings.ReplaceAll(step, "P", fmt.Sprintf("local.a%d", i-1)))
		}
		return b.String()
	}
	cases := []struct {
		name, locals string
		wants        []string
	}{
		{"setproduct", "  x = length(setproduct(range(300), range(300), range(300)))",
			[]string{"j.hcl:2:14:", `Call to function "setproduct" failed: evaluation limit: the result would have`}},
		{"swallowed by try", "  x = try(setproduct(range(300), range(300), range(300)), 0)",
			[]string{`j.hcl:2:7: Error in function call; Call to function "try" failed: evaluation limit: the result would have 108000000 elements`}},
		{"format width", `  x = format("%999999999d", 1)`, []string{"j.hcl:2:7:", `"format" failed: evaluation limit`}},
		{"nested for", "  x = [for a in range(1000): [for b in range(1000): [for c in range(1000): c]]]",
			[]string{"j.hcl:2:", "evaluation limit: ", "would bring the work of this file over 250000 elements"}},
		{"doubling strings", doubling(`"aaaaaaaaaaaaaaaa"`, `"${P}${P}"`, 40), []string{"j.hcl:", "holds more than 1048576 bytes"}},
		{"doubling lists", doubling("[1, 1]", "[P, P]", 40), []string{"j.hcl:", "has more than 100000 elements"}},
		{"template repeats", `  s = join("", [for i in range(1000): "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"])` +
			"\n  t = \"" + strings.Repeat("${local.s}", 300) + "\"", []string{"j.hcl:", "template interpolations would insert more than"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantParseError(t, &ParseConfig{Path: "j.hcl", Body: job(c.locals)}, c.wants...)
		})
	}
}

// TestEvaluationTimeBox: past its deadline, evaluation stops with a
// diagnostic. (A 1 ns budget is over before evaluation starts.)
func TestEvaluationTimeBox(t *testing.T) {
	body := []byte("locals {\n  x = upper(\"a\")\n}\n" + tinyJob)
	cfg := &ParseConfig{Path: "j.hcl", Body: body, limits: hclutil.Limits{Timeout: time.Nanosecond}}
	wantParseError(t, cfg, "j.hcl:", "evaluation limit: evaluation took longer than 1ns")
	if _, err := Parse(&ParseConfig{Path: "j.hcl", Body: body}); err != nil {
		t.Fatalf("with the default limits: %v", err)
	}
}
