package structs

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"time"
)

// The reflection walker behind Job.Diff (diff.go): it compares two values
// of one type field by field, as Nomad's diff does: scalars as FieldDiffs,
// nested structs and sets as ObjectDiffs, maps key by key.

// diffStruct diffs two struct values of one type (either may be invalid:
// absent) field by field: scalars, durations, maps of scalars and slices of
// scalars become fields named after the Go field ("Meta[k]"); nested
// structs, slices of structs and free-form maps (a task's Config) become
// objects.
func diffStruct(ov, nv reflect.Value, skip map[string]bool) ([]*FieldDiff, []*ObjectDiff) {
	t := typeOf(ov, nv)
	if t == nil {
		return nil, nil
	}
	var fields []*FieldDiff
	var objects []*ObjectDiff
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() || skip[sf.Name] {
			continue
		}
		of, nf := fieldOf(ov, i), fieldOf(nv, i)
		f, o := diffValue(sf.Name, sf.Type, of, nf)
		fields = append(fields, f...)
		objects = append(objects, o...)
	}
	sort.SliceStable(fields, func(a, b int) bool { return fields[a].Name < fields[b].Name })
	sort.SliceStable(objects, func(a, b int) bool { return objects[a].Name < objects[b].Name })
	return fields, objects
}

func typeOf(ov, nv reflect.Value) reflect.Type {
	switch {
	case ov.IsValid():
		return ov.Type()
	case nv.IsValid():
		return nv.Type()
	}
	return nil
}

func fieldOf(v reflect.Value, i int) reflect.Value {
	if !v.IsValid() {
		return v
	}
	return v.Field(i)
}

// deref follows pointers and interfaces; nil gives the invalid Value.
func deref(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

var durationType = reflect.TypeOf(time.Duration(0))

// diffValue diffs one field of type t.
func diffValue(name string, t reflect.Type, ov, nv reflect.Value) ([]*FieldDiff, []*ObjectDiff) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	ov, nv = deref(ov), deref(nv)
	switch {
	case isScalar(t):
		if f := scalarDiff(name, ov, nv); f != nil {
			return []*FieldDiff{f}, nil
		}
		return nil, nil
	case t.Kind() == reflect.Struct:
		return nil, objectDiff(t.Name(), ov, nv, func(o, n reflect.Value) ([]*FieldDiff, []*ObjectDiff) {
			return diffStruct(o, n, nil)
		})
	case t.Kind() == reflect.Map && isScalar(t.Elem()):
		return mapFields(name, ov, nv), nil
	case t.Kind() == reflect.Slice && isScalar(t.Elem()):
		return nil, objectDiff(name, ov, nv, func(o, n reflect.Value) ([]*FieldDiff, []*ObjectDiff) {
			return scalarSetDiff(name, o, n), nil
		})
	case t.Kind() == reflect.Slice && structElem(t.Elem()):
		return nil, structSetDiff(t.Elem(), ov, nv)
	default: // free-form: map[string]any and the like
		return nil, objectDiff(name, ov, nv, func(o, n reflect.Value) ([]*FieldDiff, []*ObjectDiff) {
			return flatDiff(o, n), nil
		})
	}
}

func isScalar(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

func structElem(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// scalarString formats a scalar as Nomad does (durations in nanoseconds).
func scalarString(v reflect.Value) string {
	if !v.IsValid() {
		return ""
	}
	if v.Type() == durationType {
		return strconv.FormatInt(v.Int(), 10)
	}
	return fmt.Sprint(v.Interface())
}

// scalarDiff is nil when equal. A side that is absent (its parent object
// is) makes the field Added or Deleted.
func scalarDiff(name string, ov, nv reflect.Value) *FieldDiff {
	o, n := scalarString(ov), scalarString(nv)
	switch {
	case ov.IsValid() && nv.IsValid() && o == n:
		return nil
	case !ov.IsValid() && !nv.IsValid():
		return nil
	case !ov.IsValid():
		return &FieldDiff{Type: DiffTypeAdded, Name: name, New: n}
	case !nv.IsValid():
		return &FieldDiff{Type: DiffTypeDeleted, Name: name, Old: o}
	}
	return &FieldDiff{Type: DiffTypeEdited, Name: name, Old: o, New: n}
}

// objectDiff wraps the diff of a nested value into an object named name,
// or nothing when nothing changed.
func objectDiff(name string, ov, nv reflect.Value, inner func(o, n reflect.Value) ([]*FieldDiff, []*ObjectDiff)) []*ObjectDiff {
	typ := pairType(present(ov), present(nv))
	if typ == DiffTypeNone && !present(ov) {
		return nil
	}
	f, o := inner(ov, nv)
	if len(f) == 0 && len(o) == 0 {
		return nil
	}
	if typ == DiffTypeNone {
		typ = DiffTypeEdited
	}
	return []*ObjectDiff{{Type: typ, Name: name, Fields: f, Objects: o}}
}

// present reports whether v holds something (an empty map or slice counts
// as absent, as in Nomad's flattened diffs).
func present(v reflect.Value) bool {
	if !v.IsValid() {
		return false
	}
	switch v.Kind() {
	case reflect.Map, reflect.Slice:
		return v.Len() > 0
	}
	return true
}

// mapFields diffs a map of scalars key by key: fields "Name[key]".
func mapFields(name string, ov, nv reflect.Value) []*FieldDiff {
	keys := map[string][2]reflect.Value{}
	for i, m := range []reflect.Value{ov, nv} {
		if !m.IsValid() {
			continue
		}
		it := m.MapRange()
		for it.Next() {
			k := fmt.Sprint(it.Key().Interface())
			p := keys[k]
			p[i] = it.Value()
			keys[k] = p
		}
	}
	var out []*FieldDiff
	for _, k := range sortedKeys(keys) {
		if f := scalarDiff(name+"["+k+"]", keys[k][0], keys[k][1]); f != nil {
			out = append(out, f)
		}
	}
	return out
}

// scalarSetDiff diffs a list of scalars as a set: each element added or
// removed is a field named after the list.
func scalarSetDiff(name string, ov, nv reflect.Value) []*FieldDiff {
	set := func(v reflect.Value) map[string]bool {
		m := map[string]bool{}
		for i := 0; v.IsValid() && i < v.Len(); i++ {
			m[scalarString(v.Index(i))] = true
		}
		return m
	}
	os, ns := set(ov), set(nv)
	var out []*FieldDiff
	for _, k := range sortedKeys(os) {
		if !ns[k] {
			out = append(out, &FieldDiff{Type: DiffTypeDeleted, Name: name, Old: k})
		}
	}
	for _, k := range sortedKeys(ns) {
		if !os[k] {
			out = append(out, &FieldDiff{Type: DiffTypeAdded, Name: name, New: k})
		}
	}
	return out
}

// structSetDiff diffs a list of structs (constraints, affinities) as a
// set: an element with no equal on the other side is a Deleted or Added
// object named after its type.
func structSetDiff(elem reflect.Type, ov, nv reflect.Value) []*ObjectDiff {
	for elem.Kind() == reflect.Pointer {
		elem = elem.Elem()
	}
	contains := func(list reflect.Value, x reflect.Value) bool {
		for i := 0; list.IsValid() && i < list.Len(); i++ {
			if reflect.DeepEqual(deref(list.Index(i)).Interface(), x.Interface()) {
				return true
			}
		}
		return false
	}
	var out []*ObjectDiff
	edited := pairByKey(elem, ov, nv, contains)
	for _, p := range edited {
		out = append(out, objectDiff(elem.Name(), p[0], p[1], func(o, n reflect.Value) ([]*FieldDiff, []*ObjectDiff) {
			return diffStruct(o, n, nil)
		})...)
	}
	for _, side := range []struct {
		list, other reflect.Value
		deleted     bool
	}{{ov, nv, true}, {nv, ov, false}} {
		for i := 0; side.list.IsValid() && i < side.list.Len(); i++ {
			x := deref(side.list.Index(i))
			if !x.IsValid() || contains(side.other, x) || paired(edited, x) {
				continue
			}
			o, n := x, reflect.Value{}
			if !side.deleted {
				o, n = n, o
			}
			out = append(out, objectDiff(elem.Name(), o, n, func(o, n reflect.Value) ([]*FieldDiff, []*ObjectDiff) {
				return diffStruct(o, n, nil)
			})...)
		}
	}
	return out
}

// diffKeys names, per element type, the field that identifies an element
// of a set across versions, as Nomad's diff does for services and checks:
// a changed element with the same key on both sides is one Edited object
// (its changed fields), not a Deleted and an Added one.
var diffKeys = map[string]string{"Service": "Name", "ServiceCheck": "Name"}

// pairByKey returns the changed elements of ov and nv that share their key
// (each key once on either side), as [old, new] pairs in nv's order.
func pairByKey(elem reflect.Type, ov, nv reflect.Value, contains func(list, x reflect.Value) bool) [][2]reflect.Value {
	field, ok := diffKeys[elem.Name()]
	if !ok || !ov.IsValid() || !nv.IsValid() {
		return nil
	}
	byKey := func(list reflect.Value, other reflect.Value) (map[string]reflect.Value, []string) {
		m, dup := map[string]reflect.Value{}, map[string]bool{}
		var order []string
		for i := 0; i < list.Len(); i++ {
			x := deref(list.Index(i))
			if !x.IsValid() || contains(other, x) {
				continue
			}
			k := x.FieldByName(field).String()
			if _, seen := m[k]; seen {
				dup[k] = true
			}
			m[k] = x
			order = append(order, k)
		}
		for k := range dup {
			delete(m, k)
		}
		return m, order
	}
	olds, _ := byKey(ov, nv)
	news, order := byKey(nv, ov)
	var out [][2]reflect.Value
	for _, k := range order {
		o, okO := olds[k]
		n, okN := news[k]
		if okO && okN {
			out = append(out, [2]reflect.Value{o, n})
		}
	}
	return out
}

// paired reports whether x is one side of an edited pair.
func paired(pairs [][2]reflect.Value, x reflect.Value) bool {
	for _, p := range pairs {
		if reflect.DeepEqual(p[0].Interface(), x.Interface()) || reflect.DeepEqual(p[1].Interface(), x.Interface()) {
			return true
		}
	}
	return false
}

// flatDiff diffs free-form values (a task's Config) flattened into keys
// such as "args[0]" and "mounts[0].source".
func flatDiff(ov, nv reflect.Value) []*FieldDiff {
	o, n := map[string]string{}, map[string]string{}
	flatten("", ov, o)
	flatten("", nv, n)
	keys := map[string]bool{}
	for k := range o {
		keys[k] = true
	}
	for k := range n {
		keys[k] = true
	}
	var out []*FieldDiff
	for _, k := range sortedKeys(keys) {
		ov, ook := o[k]
		nv, nok := n[k]
		switch {
		case ook && nok && ov != nv:
			out = append(out, &FieldDiff{Type: DiffTypeEdited, Name: k, Old: ov, New: nv})
		case ook && !nok:
			out = append(out, &FieldDiff{Type: DiffTypeDeleted, Name: k, Old: ov})
		case !ook && nok:
			out = append(out, &FieldDiff{Type: DiffTypeAdded, Name: k, New: nv})
		}
	}
	return out
}

func flatten(prefix string, v reflect.Value, out map[string]string) {
	v = deref(v)
	if !v.IsValid() {
		return
	}
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch v.Kind() {
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			flatten(join(fmt.Sprint(it.Key().Interface())), it.Value(), out)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			flatten(fmt.Sprintf("%s[%d]", prefix, i), v.Index(i), out)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				flatten(join(v.Type().Field(i).Name), v.Field(i), out)
			}
		}
	default:
		out[prefix] = scalarString(v)
	}
}
