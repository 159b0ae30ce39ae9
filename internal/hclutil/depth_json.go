package hclutil

import (
	"encoding/json"

	"github.com/hashicorp/hcl/v2"
)

// CheckJSONDepth is CheckDepth for HCL's JSON syntax: arrays and objects
// are levels, and every string is scanned as the template hcl/v2 may
// parse it as, starting at the depth of the string.
func CheckJSONDepth(src []byte, filename string, max int) hcl.Diagnostics {
	if max <= 0 {
		max = MaxDepth
	}
	s := &depthScanner{src: src, filename: filename, max: max, pos: hcl.InitialPos, stack: []frame{{kind: frameTop}}}
	for s.i < len(s.src) {
		var err *hcl.Diagnostic
		switch c := s.src[s.i]; c {
		case '{':
			err = s.open(frame{kind: frameBrace}, 1)
		case '[':
			err = s.open(frame{kind: frameBracket}, 1)
		case '}', ']':
			s.close(c)
			s.advance(1)
		case '"':
			end := jsonStringEnd(s.src, s.i)
			var str string
			if json.Unmarshal(s.src[s.i:end], &str) == nil {
				if diags := scanDepth([]byte(str), filename, max, frameBare, s.pos, s.depth()); diags.HasErrors() {
					return diags
				}
			}
			s.advance(end - s.i)
		default:
			s.advance(1)
		}
		if err != nil {
			return hcl.Diagnostics{err}
		}
	}
	return nil
}

// jsonStringEnd returns the offset just past the string starting at i (or
// the end of src when it is unterminated).
func jsonStringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}
