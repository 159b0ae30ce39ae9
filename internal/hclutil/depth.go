package hclutil

import (
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

// MaxDepth is the deepest nesting CheckDepth and CheckJSONDepth accept by
// default. hcl/v2 parses, walks and evaluates expressions recursively with no
// bound of its own, so a deep enough input ends the process with a Go stack
// overflow, which no recover catches; real job files and agent
// configurations stay far below this.
const MaxDepth = 256

// frameKind is what opened one level of nesting.
type frameKind uint8

const (
	frameTop     frameKind = iota // the file (or expression) itself
	frameParen                    // ( … )
	frameBracket                  // [ … ]
	frameBrace                    // { … } (a block body or an object)
	frameInterp                   // ${ … } or %{ … } inside a template
	frameQuoted                   // "…"
	frameHeredoc                  // <<EOF … EOF
	frameBare                     // a template with no delimiters (an HCL-JSON string)
)

// frame is one open level; ops counts the operators chained at this level
// since its last ',' (or newline in a body), dirs the open %{if}/%{for}
// directives of a template.
type frame struct {
	kind   frameKind
	ops    int
	dirs   int
	marker []byte // heredoc closing marker
}

// depthScanner counts nesting the way hcl/v2 recurses: every bracket,
// string, heredoc and interpolation is one level, and so is every operator
// in a chain (a+b+c… and !!!…x nest as deeply as parentheses do) and every
// open template directive. It understands comments, strings (with escapes)
// and heredocs well enough that brackets inside them are not counted; where
// it cannot be sure it counts more, never less, than hcl/v2 would nest.
type depthScanner struct {
	src      []byte
	filename string
	max      int
	i        int
	pos      hcl.Pos
	stack    []frame
	extra    int // the sum of ops and dirs over the stack
}

// CheckDepth refuses native-syntax HCL (a config file, a job file or a var
// file) that nests deeper than max levels (MaxDepth when max <= 0), before
// it reaches hcl/v2. The error diagnostic names filename:line:col of the
// token that went too deep.
func CheckDepth(src []byte, filename string, max int) hcl.Diagnostics {
	return scanDepth(src, filename, max, frameTop, hcl.InitialPos, 0)
}

// CheckExprDepth is CheckDepth for a lone expression (a -var value).
func CheckExprDepth(src []byte, filename string, max int) hcl.Diagnostics {
	return scanDepth(src, filename, max, frameParen, hcl.InitialPos, 0)
}

func scanDepth(src []byte, filename string, max int, kind frameKind, start hcl.Pos, depth int) hcl.Diagnostics {
	if max <= 0 {
		max = MaxDepth
	}
	s := &depthScanner{src: src, filename: filename, max: max, pos: start, stack: []frame{{kind: kind}}, extra: depth}
	if err := s.run(); err != nil {
		return hcl.Diagnostics{err}
	}
	return nil
}

func (s *depthScanner) depth() int { return len(s.stack) - 1 + s.extra }

func (s *depthScanner) tooDeep() *hcl.Diagnostic {
	r := hcl.Range{Filename: s.filename, Start: s.pos, End: s.pos}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Nesting too deep",
		Detail: fmt.Sprintf("This nests deeper than %d levels (each bracket, string, interpolation, open template "+
			"directive and chained operator is one level); simplify the expression.", s.max),
		Subject: &r,
	}
}

// push opens a level at the current position (before advancing).
func (s *depthScanner) push(f frame) *hcl.Diagnostic {
	s.stack = append(s.stack, f)
	if s.depth() > s.max {
		return s.tooDeep()
	}
	return nil
}

func (s *depthScanner) pop() {
	top := s.stack[len(s.stack)-1]
	s.extra -= top.ops + top.dirs
	s.stack = s.stack[:len(s.stack)-1]
}

func (s *depthScanner) top() *frame { return &s.stack[len(s.stack)-1] }

// advance moves past n bytes, keeping line and column (in runes).
func (s *depthScanner) advance(n int) {
	for end := s.i + n; s.i < end && s.i < len(s.src); {
		if c := s.src[s.i]; c < utf8.RuneSelf && c != '\n' {
			s.i++
			s.pos.Byte = s.i
			s.pos.Column++
			continue
		}
		r, size := utf8.DecodeRune(s.src[s.i:])
		s.i += size
		s.pos.Byte = s.i
		if r == '\n' {
			s.pos.Line++
			s.pos.Column = 1
		} else {
			s.pos.Column++
		}
	}
}

func (s *depthScanner) hasPrefix(p string) bool {
	return len(s.src)-s.i >= len(p) && string(s.src[s.i:s.i+len(p)]) == p
}

func (s *depthScanner) run() *hcl.Diagnostic {
	for s.i < len(s.src) {
		var err *hcl.Diagnostic
		switch s.top().kind {
		case frameQuoted, frameHeredoc, frameBare:
			err = s.template()
		default:
			err = s.code()
		}
		if err != nil {
			return err
		}
	}
	return nil
}
