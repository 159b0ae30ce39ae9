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
// value (segments are pushed on the way down and popped on the way up;
// formatted only for the error) and the pointers already walked.
type nilWalker struct {
	path    []pathSeg
	seen    map[walked]bool
	tooDeep bool
}

// pathSeg is one step of a path: a field name, a list index or a map key.
type pathSeg struct {
	field string        // ".Name"; "" for an embedded struct, an index or a key
	index int           // list index when key is invalid and field is ""
	key   reflect.Value // map key, when valid
	elem  bool          // an index or key (not a field)
}

func (p pathSeg) String() string {
	switch {
	case !p.elem:
		return p.field
	case p.key.IsValid():
		return "[" + mapKey(p.key) + "]"
	default:
		return "[" + strconv.Itoa(p.index) + "]"
	}
}

// walked identifies a pointer already walked (its type too: a struct and
// its first field share an address).
type walked struct {
	t reflect.Type
	p uintptr
}

func (w *nilWalker) problem() string {
	var b strings.Builder
	for _, seg := range w.path {
		b.WriteString(seg.String())
	}
	p := strings.TrimPrefix(b.String(), ".")
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
			if w.element(v.Index(i), pathSeg{index: i, elem: true}, depth) {
				return true
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if w.element(it.Value(), pathSeg{key: it.Key(), elem: true}, depth) {
				return true
			}
		}
	}
	return false
}

// element checks one element of a slice, array or map: a nil pointer there
// is refused.
func (w *nilWalker) element(e reflect.Value, seg pathSeg, depth int) bool {
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
	for _, f := range pointerFields(v.Type()) {
		w.path = append(w.path, pathSeg{field: f.name})
		if w.walk(v.Field(f.index), depth+1) {
			return true
		}
		w.path = w.path[:len(w.path)-1]
	}
	return false
}

// structField is an exported field that may hold a pointer.
type structField struct {
	index int
	name  string // ".Name"; "" for an embedded struct (its fields read as the outer's)
}

// structFields caches pointerFields per struct type (reflect.Type ->
// []structField).
var structFields sync.Map

// pointerFields lists t's exported fields that may hold a pointer.
func pointerFields(t reflect.Type) []structField {
	if r, ok := structFields.Load(t); ok {
		return r.([]structField)
	}
	var out []structField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || !mayHoldPointer(f.Type) {
			continue
		}
		name := "." + f.Name
		if f.Anonymous {
			name = ""
		}
		out = append(out, structField{index: i, name: name})
	}
	structFields.Store(t, out)
	return out
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
