package hclutil

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

func nest(open, inner, close string, n int) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// TestCheckDepth holds the scanner to hcl/v2's nesting: what nests is
// counted (and refused past the limit at its position), what only looks
// like nesting (in comments, strings, heredoc text, escapes) is not.
func TestCheckDepth(t *testing.T) {
	deep := MaxDepth + 10
	cases := []struct {
		name, src string
		wantPos   string // "" for accepted
	}{
		{"80000 parens", "a = " + nest("(", "1", ")", 80000), "t.hcl:1:261"},
		{"brackets", "a = " + nest("[", "", "]", deep), "t.hcl:1:261"},
		{"objects", "a = " + nest("{a=", "1", "}", deep), "t.hcl:1:"},
		{"blocks", nest("b {\n", "", "}\n", deep), "t.hcl:"},
		{"interpolations", `a = ` + nest(`"${`, "1", `}"`, deep), "t.hcl:1:"},
		{"binary chain", "a = 1" + strings.Repeat("+1", deep), "t.hcl:1:"},
		{"unary chain", "a = " + strings.Repeat("!", deep) + "true", "t.hcl:1:"},
		{"ternary chain", "a = " + strings.Repeat("true?1:", deep) + "1", "t.hcl:1:"},
		{"directives", `a = "` + strings.Repeat("%{if true}", deep) + "x" + strings.Repeat("%{endif}", deep) + `"`, "t.hcl:1:"},
		{"heredoc interpolations", "a = <<EOT\n" + nest("${", "1", "}", 1) + nest("${(", "1", ")}", deep) + "\nEOT\n", "t.hcl:2:"},
		{"at the limit", "a = " + nest("(", "1", ")", MaxDepth), ""},
		{"sequential not nested", strings.Repeat("b {\n a = (((1)))\n}\n", 1000), ""},
		{"chains reset by newlines", strings.Repeat("b {\n a = 1+1+1\n}\n", 1000), ""},
		{"chains reset by commas", "a = [" + strings.Repeat("1+1, ", 1000) + "]", ""},
		{"comments", "# " + strings.Repeat("(", deep) + "\n// " + strings.Repeat("[", deep) + "\n/* " + strings.Repeat("{", deep) + " */\na = 1", ""},
		{"string text", `a = "` + strings.Repeat("(", deep) + `"`, ""},
		{"escaped quotes", `a = "\"` + strings.Repeat("(", deep) + `"`, ""},
		{"escaped interpolations", `a = "` + strings.Repeat("$${", deep) + strings.Repeat("%%{", deep) + `"`, ""},
		{"heredoc text", "a = <<-EOT\n" + strings.Repeat("(", deep) + "\n  EOT\nb = 1\n", ""},
		{"closed directives", `a = "` + strings.Repeat("%{if true}x%{endif}", deep) + `"`, ""},
		{"splats", "a = x" + strings.Repeat("[*].y", deep), ""},
		{"for arrows", "a = {" + strings.Repeat("for k, v in x: k => v", 1) + "}", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			diags := CheckDepth([]byte(c.src), "t.hcl", 0)
			if c.wantPos == "" {
				if diags.HasErrors() {
					t.Fatalf("refused: %v", diags)
				}
				if _, d := hclsyntax.ParseConfig([]byte(c.src), "t.hcl", hcl.InitialPos); d.HasErrors() {
					t.Fatalf("the accepted sample is not valid HCL: %v", d)
				}
				return
			}
			if !diags.HasErrors() || diags[0].Subject == nil {
				t.Fatalf("accepted, want refusal at %s", c.wantPos)
			}
			got := posOf(diags[0])
			if !strings.HasPrefix(got, c.wantPos) || !strings.Contains(diags[0].Detail, "256") {
				t.Fatalf("got %s %s; want at %s", got, diags[0].Detail, c.wantPos)
			}
		})
	}
}

func posOf(d *hcl.Diagnostic) string {
	s := d.Subject
	return fmt.Sprintf("%s:%d:%d", s.Filename, s.Start.Line, s.Start.Column)
}

func TestCheckExprDepth(t *testing.T) {
	if d := CheckExprDepth([]byte(nest("[", "1", "]", 300)), "<value for var.x>", 0); !d.HasErrors() {
		t.Fatal("a deep -var value was accepted")
	}
	if d := CheckExprDepth([]byte(`[1, 2, {a = "b"}]`), "v", 0); d.HasErrors() {
		t.Fatalf("refused: %v", d)
	}
}

func TestCheckJSONDepth(t *testing.T) {
	cases := []struct {
		name, src string
		refused   bool
	}{
		{"arrays", `{"a": ` + nest("[", "1", "]", 80000) + `}`, true},
		{"objects", nest(`{"a":`, "1", "}", 300), true},
		{"template in a string", `{"a": "${` + nest("(", "1", ")", 300) + `}"}`, true},
		{"template after escapes", `{"a": "\"${` + nest("(", "1", ")", 300) + `}"}`, true},
		{"brackets in strings", `{"a": "` + strings.Repeat("[", 300) + `"}`, false},
		{"escaped quote", `{"a": "\"[[[[", "b": [1, 2]}`, false},
		{"ordinary", `{"job": {"x": {"group": {"g": {"count": 1}}}}}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := CheckJSONDepth([]byte(c.src), "v.json", 0)
			if d.HasErrors() != c.refused {
				t.Fatalf("refused = %v, want %v: %v", d.HasErrors(), c.refused, d)
			}
			if c.refused && d[0].Subject.Filename != "v.json" {
				t.Fatalf("diagnostic names %q", d[0].Subject.Filename)
			}
		})
	}
}
