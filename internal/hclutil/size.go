package hclutil

import (
	"github.com/zclconf/go-cty/cty"
)

// Size counts the elements (members of lists, sets, tuples, maps and
// objects, through every level) and string bytes of v, unmarked. It stops
// as soon as either passes its cap, so it costs at most about maxElems
// steps even for a value that shares one sub-value many times over.
func Size(v cty.Value, maxElems, maxBytes int) (elems, bytes int) {
	var walk func(v cty.Value)
	walk = func(v cty.Value) {
		if elems > maxElems || bytes > maxBytes {
			return
		}
		v, _ = v.Unmark()
		if v.IsNull() || !v.IsKnown() {
			return
		}
		ty := v.Type()
		switch {
		case ty == cty.String:
			bytes += len(v.AsString())
		case ty.IsListType() || ty.IsSetType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType():
			for it := v.ElementIterator(); it.Next() && elems <= maxElems && bytes <= maxBytes; {
				k, e := it.Element()
				elems++
				if ty.IsMapType() || ty.IsObjectType() {
					bytes += len(k.AsString())
				}
				walk(e)
			}
		}
	}
	walk(v)
	return elems, bytes
}

// CheckValue returns an error wrapping ErrLimit when v holds more than
// MaxElements elements or MaxStringBytes bytes of strings.
func (l *Limiter) CheckValue(v cty.Value, what string) error {
	elems, bytes := Size(v, l.MaxElements, l.MaxStringBytes)
	switch {
	case elems > l.MaxElements:
		return l.trip(limitf("%s has more than %d elements", what, l.MaxElements))
	case bytes > l.MaxStringBytes:
		return l.trip(limitf("%s holds more than %d bytes of strings", what, l.MaxStringBytes))
	}
	return nil
}
