package hclutil

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
)

// code scans one token of an expression or body.
func (s *depthScanner) code() *hcl.Diagnostic {
	c := s.src[s.i]
	switch {
	case c == '#' || s.hasPrefix("//"):
		s.skipTo(1, []byte("\n"), 0)
	case s.hasPrefix("/*"):
		s.skipTo(2, []byte("*/"), 2)
	case c == '"':
		return s.open(frame{kind: frameQuoted}, 1)
	case c == '(':
		return s.open(frame{kind: frameParen}, 1)
	case c == '[':
		return s.open(frame{kind: frameBracket}, 1)
	case c == '{':
		return s.open(frame{kind: frameBrace}, 1)
	case c == ')' || c == ']' || c == '}':
		s.close(c)
		s.advance(1)
	case c == ',':
		s.resetOps()
		s.advance(1)
	case c == '\n':
		if k := s.top().kind; k == frameTop || k == frameBrace {
			s.resetOps() // a newline ends an argument or an object item
		}
		s.advance(1)
	default:
		if c == '<' {
			if marker, n := s.heredocIntro(); n > 0 {
				return s.open(frame{kind: frameHeredoc, marker: marker}, n)
			}
		}
		n, isOp := s.operator()
		if isOp {
			s.top().ops++
			s.extra++
			if s.depth() > s.max {
				return s.tooDeep()
			}
		}
		s.advance(n)
	}
	return nil
}

// open pushes f at the current position and moves past its n-byte opener.
func (s *depthScanner) open(f frame, n int) *hcl.Diagnostic {
	if err := s.push(f); err != nil {
		return err
	}
	s.advance(n)
	return nil
}

// close pops the top level when c closes it; a stray closer is left for
// hcl/v2 to report (popping on it could only under-count).
func (s *depthScanner) close(c byte) {
	k := s.top().kind
	if (c == ')' && k == frameParen) || (c == ']' && k == frameBracket) ||
		(c == '}' && (k == frameBrace || k == frameInterp)) {
		s.pop()
	}
}

func (s *depthScanner) resetOps() {
	f := s.top()
	s.extra -= f.ops
	f.ops = 0
}

// skipTo moves to the next end found from skip bytes on (and past its
// extra bytes), or to the end of the source.
func (s *depthScanner) skipTo(skip int, end []byte, extra int) {
	j := -1
	if s.i+skip <= len(s.src) {
		j = bytes.Index(s.src[s.i+skip:], end)
	}
	if j < 0 {
		s.advance(len(s.src) - s.i)
		return
	}
	s.advance(skip + j + extra)
}

// heredocIntro recognises "<<EOF\n" or "<<-EOF\n" (an ASCII subset of the
// identifiers hcl/v2 accepts, so it never sees a heredoc hcl/v2 does not).
func (s *depthScanner) heredocIntro() ([]byte, int) {
	if !s.hasPrefix("<<") {
		return nil, 0
	}
	j := s.i + 2
	if j < len(s.src) && s.src[j] == '-' {
		j++
	}
	start := j
	for j < len(s.src) && isIdentByte(s.src[j], j == start) {
		j++
	}
	if j == start {
		return nil, 0
	}
	marker := s.src[start:j]
	switch {
	case bytes.HasPrefix(s.src[j:], []byte("\n")):
		return marker, j + 1 - s.i
	case bytes.HasPrefix(s.src[j:], []byte("\r\n")):
		return marker, j + 2 - s.i
	}
	return nil, 0
}

func isIdentByte(c byte, first bool) bool {
	letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
	if first {
		return letter
	}
	return letter || c == '-' || (c >= '0' && c <= '9')
}

// operator returns the length of the token at the cursor and whether it is
// an operator that nests the expression one level deeper.
func (s *depthScanner) operator() (int, bool) {
	c := s.src[s.i]
	if s.i+1 < len(s.src) {
		switch string(s.src[s.i : s.i+2]) {
		case "&&", "||", "<=", ">=", "!=", "==":
			return 2, true
		case "=>":
			return 2, false
		}
	}
	switch c {
	case '*':
		// a splat (.* or [*]) is not an operator
		prev := byte(0)
		if s.i > 0 {
			prev = s.src[s.i-1]
		}
		return 1, prev != '.' && prev != '['
	case '+', '-', '/', '%', '!', '?', '<', '>', '&', '|':
		return 1, true
	}
	return 1, false
}

// template scans one piece of a quoted string or heredoc.
func (s *depthScanner) template() *hcl.Diagnostic {
	f := s.top()
	if f.kind == frameHeredoc && s.i > 0 && s.src[s.i-1] == '\n' {
		line := s.src[s.i:]
		if j := bytes.IndexByte(line, '\n'); j >= 0 {
			line = line[:j]
		}
		if bytes.Equal(bytes.TrimSpace(line), f.marker) {
			s.pop()
			s.advance(len(line))
			return nil
		}
	}
	c := s.src[s.i]
	switch {
	case f.kind == frameQuoted && c == '\\' && s.i+1 < len(s.src) && s.src[s.i+1] != '\n' && s.src[s.i+1] != '\r':
		s.advance(2)
	case f.kind == frameQuoted && (c == '"' || c == '\n' || c == '\r'):
		// an unterminated string is an hcl/v2 error; scanning on as
		// code can only count more
		s.pop()
		s.advance(1)
	case s.hasPrefix("$${") || s.hasPrefix("%%{"):
		s.advance(3)
	case s.hasPrefix("${"):
		return s.open(frame{kind: frameInterp}, 2)
	case s.hasPrefix("%{"):
		switch s.directive() {
		case "if", "for":
			f.dirs++
			s.extra++
		case "endif", "endfor":
			if f.dirs > 0 {
				f.dirs--
				s.extra--
			}
		}
		return s.open(frame{kind: frameInterp}, 2)
	default:
		s.advance(1)
	}
	return nil
}

// directive returns the keyword after the "%{" at the cursor.
func (s *depthScanner) directive() string {
	j := s.i + 2
	if j < len(s.src) && s.src[j] == '~' {
		j++
	}
	for j < len(s.src) && (s.src[j] == ' ' || s.src[j] == '\t' || s.src[j] == '\n' || s.src[j] == '\r') {
		j++
	}
	start := j
	for j < len(s.src) && s.src[j] >= 'a' && s.src[j] <= 'z' {
		j++
	}
	return string(s.src[start:j])
}
