// Package niltest finds the places a nil can hide in a decoded request:
// Fill gives every pointer, list and map reachable from a value a member,
// then Site makes one of them nil at a time, so a test can prove a checker
// or an endpoint answers each with an error, never a panic. It holds no
// test framework code: server and endpoint tests share it.
package niltest

import (
	"fmt"
	"reflect"
)

// Fill sets every exported field reachable from v (settable): pointers get
// a value, lists one element, maps one entry, strings "x", numbers 1, so
// that each nil site can then be tried alone. Interfaces stay nil (they
// are data, never dereferenced as structs).
func Fill(v reflect.Value) { fillValue(v, 0) }

// Site sets the n-th pointer (a field, a list element or a map value)
// reachable from v to nil, counting in a fixed walk order, and returns its
// path; "" when v has fewer than n+1 pointers. n is decremented as pointers
// are passed.
func Site(v reflect.Value, n *int) string { return nilSite(v, n, "") }

// fillValue sets every exported field reachable from v: pointers get a
// value, lists one element, maps one entry, strings "x", numbers 1, so
// that each nil site can then be tried alone. Interfaces stay nil (they are
// data, never dereferenced as structs).
func fillValue(v reflect.Value, depth int) {
	if depth > 12 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillValue(v.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillValue(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillValue(v.Index(0), depth+1)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillValue(k, depth+1)
		fillValue(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	}
}

// Site sets the n-th pointer (a field, a list element or a map value)
// reachable from v to nil, counting in a fixed walk order, and returns its
// path; "" when v has fewer than n+1 pointers.
func nilSite(v reflect.Value, n *int, path string) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return ""
		}
		if *n == 0 && v.CanSet() {
			v.Set(reflect.Zero(v.Type()))
			return path
		}
		if v.CanSet() {
			*n--
		}
		return nilSite(v.Elem(), n, path)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() {
				if p := nilSite(v.Field(i), n, path+"."+f.Name); p != "" {
					return p
				}
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if p := nilSite(v.Index(i), n, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := v.MapIndex(k)
			if e.Kind() != reflect.Pointer || e.IsNil() {
				continue
			}
			if *n == 0 {
				v.SetMapIndex(k, reflect.Zero(e.Type()))
				return fmt.Sprintf("%s[%v]", path, k)
			}
			*n--
			// Map values are not addressable: fill in a copy.
			c := reflect.New(e.Type().Elem())
			c.Elem().Set(e.Elem())
			if p := nilSite(c.Elem(), n, fmt.Sprintf("%s[%v]", path, k)); p != "" {
				v.SetMapIndex(k, c)
				return p
			}
		}
	}
	return ""
}
