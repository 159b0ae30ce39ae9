package hclutil

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// spy is a function that records that it ran and returns ret.
func spy(ran *bool, ret cty.Value) function.Function {
	return function.New(&function.Spec{
		VarParam: &function.Parameter{Name: "args", Type: cty.DynamicPseudoType, AllowNull: true},
		Type:     function.StaticReturnType(ret.Type()),
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			*ran = true
			return ret, nil
		},
	})
}

func numbers(n int) cty.Value {
	vals := make([]cty.Value, n)
	for i := range vals {
		vals[i] = cty.NumberIntVal(int64(i))
	}
	return cty.ListVal(vals)
}

func str(s string) cty.Value { return cty.StringVal(s) }

// TestPrechecksRefuseBeforeBuilding: each function whose result size
// follows from its arguments is refused before it runs when that size is
// over the limits.
func TestPrechecksRefuseBeforeBuilding(t *testing.T) {
	big := strings.Repeat("a", 200_000)
	cases := []struct {
		name string
		args []cty.Value
	}{
		{"setproduct", []cty.Value{numbers(300), numbers(300), numbers(300)}},
		{"concat", []cty.Value{numbers(60_000), numbers(60_000)}},
		{"setunion", []cty.Value{numbers(60_000), numbers(60_000)}},
		{"merge", []cty.Value{cty.MapVal(map[string]cty.Value{"a": str("")}), numbers(100_000)}},
		{"join", []cty.Value{str(strings.Repeat(",", 1000)), numbers(2000)}},
		{"format", []cty.Value{str("%999999999d"), cty.NumberIntVal(1)}},
		{"format", []cty.Value{str(strings.Repeat("%[1]s", 10)), str(big)}},
		{"formatlist", []cty.Value{str("%s%s"), numbers(50_000), str(big[:100])}},
		{"indent", []cty.Value{cty.NumberIntVal(1_000_000_000), str("a\nb")}},
		{"replace", []cty.Value{str(big), str(""), str("bbbbbb")}},
		{"replace", []cty.Value{str(big), str("/a/"), str("$0$0")}},
		{"regex_replace", []cty.Value{str(big), str("a"), str("xyzxyz")}},
		{"regexall", []cty.Value{str("a"), str(big)}},
		{"split", []cty.Value{str(""), str(big)}},
		{"csvdecode", []cty.Value{str(strings.Repeat("a,", 60_000))}},
		{"jsondecode", []cty.Value{str("[" + strings.Repeat("0,", 120_000) + "0]")}},
		{"parseint", []cty.Value{str(strings.Repeat("9", 2000)), cty.NumberIntVal(10)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ran := false
			fns := NewLimiter(Limits{}).WrapFunctions(map[string]function.Function{c.name: spy(&ran, str(""))})
			_, err := fns[c.name].Call(c.args)
			if !errors.Is(err, ErrLimit) || !strings.HasPrefix(err.Error(), "evaluation limit: ") {
				t.Fatalf("err = %v, want a limit error", err)
			}
			if ran {
				t.Fatal("the function ran before the limit was checked")
			}
		})
	}
}

func TestPrechecksAllowOrdinaryCalls(t *testing.T) {
	cases := map[string][]cty.Value{
		"setproduct": {numbers(10), numbers(10)},
		"format":     {str("%08.3f-%s"), cty.NumberIntVal(1), str("x")},
		"formatlist": {str("%s-x"), cty.ListVal([]cty.Value{str(strings.Repeat("a", 1000)), str("b")})},
		"join":       {str(", "), numbers(1000)},
		"replace":    {str("a-b-c"), str("-"), str("+")},
		"indent":     {cty.NumberIntVal(4), str("a\nb\n")},
		"split":      {str(","), str("a,b,c")},
		"jsondecode": {str(`{"a": [1, 2, "x,y,[z"]}`)},
	}
	for name, args := range cases {
		ran := false
		fns := NewLimiter(Limits{}).WrapFunctions(map[string]function.Function{name: spy(&ran, str(""))})
		if _, err := fns[name].Call(args); err != nil || !ran {
			t.Errorf("%s: err = %v, ran = %v", name, err, ran)
		}
	}
}

func TestResultAndArgumentsChecked(t *testing.T) {
	ran := false
	fns := NewLimiter(Limits{}).WrapFunctions(map[string]function.Function{"f": spy(&ran, numbers(MaxElements+1))})
	if _, err := fns["f"].Call(nil); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "more than 100000 elements") {
		t.Fatalf("too large a result: err = %v", err)
	}
	ran = false
	fns = NewLimiter(Limits{}).WrapFunctions(map[string]function.Function{"g": spy(&ran, str(""))})
	if _, err := fns["g"].Call([]cty.Value{str(strings.Repeat("a", MaxStringBytes+1))}); !errors.Is(err, ErrLimit) || ran {
		t.Fatalf("too large an argument: err = %v, ran = %v", err, ran)
	}
}

// TestDeadline: after the deadline every wrapped call and every guard
// fails; before it they run. The clock is a fake.
func TestDeadline(t *testing.T) {
	now := time.Unix(0, 0)
	lim := newLimiterClock(Limits{Timeout: time.Second}, func() time.Time { return now })
	ran := false
	ctx := lim.Context(map[string]function.Function{"f": spy(&ran, str("x"))})
	expr := parseExpr(t, lim, `[for x in [1, 2]: f(x)]`)
	if _, diags := expr.Value(ctx); diags.HasErrors() || !ran {
		t.Fatalf("in time: %v", diags)
	}
	now = now.Add(2 * time.Second)
	_, diags := expr.Value(ctx)
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "evaluation took longer than 1s") {
		t.Fatalf("after the deadline: %v", diags)
	}
	if err := lim.Check(); !errors.Is(err, ErrLimit) {
		t.Fatalf("Check = %v", err)
	}
}

func parseExpr(t *testing.T, lim *Limiter, src string) hclsyntax.Expression {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "e.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	lim.Instrument(expr)
	return expr
}

// TestGuards: nested for expressions spend their iterations, and template
// interpolations their bytes, so neither builds a huge value without a
// single function call.
func TestGuards(t *testing.T) {
	lim := NewLimiter(Limits{})
	list := numbers(1000)
	ctx := lim.Context(nil)
	ctx.Variables = map[string]cty.Value{"x": list, "s": str(strings.Repeat("a", MaxStringBytes))}
	_, diags := parseExpr(t, lim, `[for a in x: [for b in x: [for c in x: 1]]]`).Value(ctx)
	if !diags.HasErrors() || !strings.Contains(diags.Error(), `"for expression" failed: evaluation limit`) {
		t.Fatalf("nested for expressions: %v", diags)
	}
	if diags[0].Subject == nil || diags[0].Subject.Start.Column < 2 {
		t.Fatalf("no position: %v", diags[0].Subject)
	}
	lim = NewLimiter(Limits{})
	ctx = lim.Context(nil)
	ctx.Variables = map[string]cty.Value{"s": str(strings.Repeat("a", MaxStringBytes))}
	_, diags = parseExpr(t, lim, `"`+strings.Repeat("${s}", 20)+`"`).Value(ctx)
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "template interpolations would insert more than") {
		t.Fatalf("template: %v", diags)
	}
	lim = NewLimiter(Limits{})
	ctx = lim.Context(nil)
	v, diags := parseExpr(t, lim, `"a%{for x in [1, 2]}${x}%{endfor}b"`).Value(ctx)
	if diags.HasErrors() || v.AsString() != "a12b" {
		t.Fatalf("ordinary template: %#v %v", v, diags)
	}
}

// TestTripStops: after the first limit is exceeded every later call fails
// at once with that error, so a loop around a refused call ends quickly.
func TestTripStops(t *testing.T) {
	lim := NewLimiter(Limits{})
	calls := 0
	counting := function.New(&function.Spec{
		Type: function.StaticReturnType(cty.String),
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) { calls++; return cty.StringVal(""), nil },
	})
	fns := lim.WrapFunctions(map[string]function.Function{"setproduct": spy(new(bool), str("")), "f": counting})
	_, first := fns["setproduct"].Call([]cty.Value{numbers(1000), numbers(1000)})
	if !errors.Is(first, ErrLimit) {
		t.Fatalf("setproduct: %v", first)
	}
	if _, err := fns["f"].Call(nil); err == nil || err.Error() != first.Error() || calls != 0 {
		t.Fatalf("after the limit: err = %v, calls = %d", err, calls)
	}
}

func TestCompact(t *testing.T) {
	rng := &hcl.Range{Filename: "f", Start: hcl.Pos{Line: 1, Column: 1}}
	var diags hcl.Diagnostics
	for i := 0; i < 1000; i++ {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "same", Subject: rng})
	}
	for i := 0; i < 100; i++ {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "other", Detail: strings.Repeat("x", i), Subject: rng})
	}
	out := Compact(diags, 10)
	if len(out) != 11 || out[0].Summary != "same" || out[10].Summary != "Too many errors" ||
		!strings.Contains(out[10].Detail, "91 more errors") {
		t.Fatalf("got %d: %v", len(out), out)
	}
}
