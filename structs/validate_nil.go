package structs

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// maxCheckDepth bounds how deep CheckDecoded follows nested values. Decoded
// requests are far shallower; a deeper value is refused rather than walked.
const maxCheckDepth = 64

// CheckDecoded walks a decoded request (a pointer to the struct an RPC
// method or an HTTP body decodes into) and returns a 400 *CodedError naming
// the first nil member it finds, by its field path: "TaskGroups[0] is
// null", `Job.Meta["k"] is null`. A nil member is a nil pointer held as an
// element of a slice or array or as a value of a map: the code that
// consumes a request ranges over those and dereferences each element, so
// one null in a list would panic it. Nil pointers held directly in struct
// fields are optional values by convention (Update, Periodic...) and are
// allowed; the endpoints check the ones they require (a nil Job, Node...).
// Interface values (driver configs, metadata) are not walked: decoding
// fills them with plain maps, slices and scalars only.
//
// A nil v, or v itself a nil pointer, is allowed (the endpoint decides).
// Values nested deeper than maxCheckDepth are refused. Shared pointers are
// walked once, so a value built in process that points at one job from
// many allocations costs one walk of the job. Safe for concurrent use.
func CheckDecoded(v any) error {
	if v == nil {
		return nil
	}
	w := nilWalker{seen: map[walked]bool{}}
	if w.walk(reflect.ValueOf(v), 0) {
		return NewCodedError(ErrCodeBadRequest, "invalid request: %s", w.problem())
	}
	return nil
}

// nilWalker holds one walk's state: the path from the root to the current
// value (segments are pushed on the way down and popped on the way up) and
// the pointers already walked.
type nilWalker struct {
	path    []string
	seen    map[walked]bool
	tooDeep bool
}

// walked identifies a pointer already walked (its type too: a struct and
// its first field share an address).
type walked struct {
	t reflect.Type
	p uintptr
}

func (w *nilWalker) problem() string {
	p := strings.TrimPrefix(strings.Join(w.path, ""), ".")
	if p == "" {
		p = "the request"
	}
	if w.tooDeep {
		return fmt.Sprintf("%s is nested more than %d levels deep", p, maxCheckDepth)
	}
	return p + " is null"
}

// walk reports whether v (or something inside it) is a refused nil; on true
// w.path names it.
func (w *nilWalker) walk(v reflect.Value, depth int) bool {
	if !mayHoldPointer(v.Type()) {
		return false
	}
	if depth > maxCheckDepth {
		w.tooDeep = true
		return true
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return false // a nil field: the caller decides for elements
		}
		k := walked{v.Type(), v.Pointer()}
		if w.seen[k] {
			return false
		}
		w.seen[k] = true
		return w.walk(v.Elem(), depth+1)
	case reflect.Struct:
		return w.walkStruct(v, depth)
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if w.element(v.Index(i), "["+strconv.Itoa(i)+"]", depth) {
				return true
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if w.element(it.Value(), "["+mapKey(it.Key())+"]", depth) {
				return true
			}
		}
	}
	return false
}

// element checks one element of a slice, array or map: a nil pointer there
// is refused.
func (w *nilWalker) element(e reflect.Value, seg string, depth int) bool {
	w.path = append(w.path, seg)
	if e.Kind() == reflect.Pointer && e.IsNil() {
		return true
	}
	if w.walk(e, depth+1) {
		return true
	}
	w.path = w.path[:len(w.path)-1]
	return false
}

func (w *nilWalker) walkStruct(v reflect.Value, depth int) bool {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || !mayHoldPointer(f.Type) {
			continue
		}
		seg := "." + f.Name
		if f.Anonymous {
			seg = "" // embedded: its fields read as the outer struct's
		}
		w.path = append(w.path, seg)
		if w.walk(v.Field(i), depth+1) {
			return true
		}
		w.path = w.path[:len(w.path)-1]
	}
	return false
}

func mapKey(k reflect.Value) string {
	if k.Kind() == reflect.String {
		return strconv.Quote(k.String())
	}
	return fmt.Sprint(k.Interface())
}

// pointerTypes caches mayHoldPointer per type (reflect.Type -> bool).
var pointerTypes sync.Map

// mayHoldPointer reports whether a value of type t can contain a pointer
// through exported struct fields, slices, arrays, maps or pointers, which
// is all CheckDecoded looks at. Interfaces, strings and scalars cannot.
func mayHoldPointer(t reflect.Type) bool {
	if r, ok := pointerTypes.Load(t); ok {
		return r.(bool)
	}
	r := holdsPointer(t, map[reflect.Type]bool{})
	pointerTypes.Store(t, r)
	return r
}

func holdsPointer(t reflect.Type, visiting map[reflect.Type]bool) bool {
	if visiting[t] {
		return false // a recursive type: the other branches decide
	}
	visiting[t] = true
	defer delete(visiting, t)
	switch t.Kind() {
	case reflect.Pointer:
		return true
	case reflect.Slice, reflect.Array:
		return holdsPointer(t.Elem(), visiting)
	case reflect.Map:
		return holdsPointer(t.Elem(), visiting)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() && holdsPointer(f.Type, visiting) {
				return true
			}
		}
	}
	return false
}
