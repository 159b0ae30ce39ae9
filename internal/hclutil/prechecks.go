package hclutil

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
)

// satCap is where the size estimates saturate: far over any limit, far
// under an int overflow.
const satCap = 1 << 50

func satAdd(a, b int) int { return min(a+b, satCap) }

func satMul(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a > satCap/b {
		return satCap
	}
	return a * b
}

// precheck estimates, from a call's known arguments, an upper bound of the
// elements and string bytes of its result.
type precheck func(args []cty.Value) (elems, bytes int)

// prechecks covers the functions whose result can be much larger than
// their arguments (every argument is already within the value limits).
var prechecks = map[string]precheck{
	"setproduct": func(args []cty.Value) (int, int) {
		n := 1
		for _, a := range args {
			n = satMul(n, lenOf(a))
		}
		return satMul(n, 1+len(args)), 0
	},
	"concat":     sumLengths,
	"setunion":   sumLengths,
	"merge":      sumLengths,
	"join":       joinSize,
	"format":     func(args []cty.Value) (int, int) { return 0, formatSize(args, 1, valueCost) },
	"formatlist": formatListSize,
	"indent":     indentSize,
	"replace":    replaceSize,
	"regex_replace": func(args []cty.Value) (int, int) {
		return 0, regexReplaceSize(strOf(args[0]), strOf(args[1]), strOf(args[2]))
	},
	"regexall":  regexAllSize,
	"split":     splitSize,
	"csvdecode": func(args []cty.Value) (int, int) { return csvCells(strOf(args[0])), 0 },
	"jsondecode": func(args []cty.Value) (int, int) {
		return jsonValues(strOf(args[0])), 0
	},
	// big.Int parses decimal digits in more than linear time.
	"parseint": func(args []cty.Value) (int, int) { return 0, satMul(len(strOf(args[0])), 1024) },
}

func lenOf(v cty.Value) int {
	if v.IsNull() || !v.IsKnown() || !v.CanIterateElements() {
		return 0
	}
	return v.LengthInt()
}

func strOf(v cty.Value) string {
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return ""
	}
	return v.AsString()
}

func sumLengths(args []cty.Value) (int, int) {
	n := 0
	for _, a := range args {
		n = satAdd(n, lenOf(a))
	}
	return n, 0
}

// joinSize is join(separator, lists...): every element plus a separator
// between each two.
func joinSize(args []cty.Value) (int, int) {
	sep, n, bytes := len(strOf(args[0])), 0, 0
	for _, l := range args[1:] {
		n = satAdd(n, lenOf(l))
		_, b := Size(l, satCap, satCap)
		bytes = satAdd(bytes, b)
	}
	return 0, satAdd(bytes, satMul(sep, n))
}

// indentSize is indent(spaces, str): the spaces are added to every line.
func indentSize(args []cty.Value) (int, int) {
	s := strOf(args[1])
	return 0, satAdd(len(s), satMul(intOf(args[0]), strings.Count(s, "\n")+1))
}

// replaceSize is replace(str, substr, replacement); a substr in slashes is
// a regular expression.
func replaceSize(args []cty.Value) (int, int) {
	s, sub, repl := strOf(args[0]), strOf(args[1]), strOf(args[2])
	if len(sub) > 1 && sub[0] == '/' && sub[len(sub)-1] == '/' {
		return 0, regexReplaceSize(s, sub[1:len(sub)-1], repl)
	}
	n := strings.Count(s, sub) // for "" it counts the runes plus one
	return 0, satAdd(len(s), satMul(n, len(repl)))
}

// regexReplaceSize bounds a regular-expression replacement: each match
// inserts the replacement, whose $ references expand to at most len(s).
func regexReplaceSize(s, pattern, repl string) int {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return 0 // the function reports it
	}
	m := len(re.FindAllStringIndex(s, -1))
	per := satAdd(len(repl), satMul(strings.Count(repl, "$"), len(s)))
	return satAdd(len(s), satMul(m, per))
}

func regexAllSize(args []cty.Value) (int, int) {
	re, err := regexp.Compile(strOf(args[0]))
	if err != nil {
		return 0, 0
	}
	m := len(re.FindAllStringIndex(strOf(args[1]), -1))
	return satMul(m, re.NumSubexp()+2), 0
}

// splitSize is split(separator, str).
func splitSize(args []cty.Value) (int, int) {
	sep, s := strOf(args[0]), strOf(args[1])
	if sep == "" {
		return utf8.RuneCountInString(s), 0
	}
	return strings.Count(s, sep) + 1, 0
}

// csvCells bounds the cells of a CSV document (each becomes an element).
func csvCells(s string) int {
	return 2 * (strings.Count(s, ",") + strings.Count(s, "\n") + 1)
}

// jsonValues bounds the values of a JSON document: each value after the
// first follows a ',', '[' or ':' outside strings.
func jsonValues(s string) int {
	n := 1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			i = jsonStringEnd([]byte(s[i:]), 0) + i - 1
		case ',', '[', ':':
			n++
		}
	}
	return n
}
