package server

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

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

// nilSite sets the n-th pointer (a field, a list element or a map value)
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

// TestJobNilAtEverySite: the class of the nil task group finding. A job
// with every member present is made nil at each pointer in turn (fields,
// list elements, map values); the Job.Register and Job.Plan checks
// (CheckDecoded, then prepareJob: copy, Canonicalize, Validate) answer
// each with a job or a 400, never a panic.
func TestJobNilAtEverySite(t *testing.T) {
	sites := 0
	for n := 0; ; n++ {
		req := &structs.JobRegisterRequest{}
		fillValue(reflect.ValueOf(&req.Job).Elem(), 0)
		k := n
		path := nilSite(reflect.ValueOf(req).Elem(), &k, "")
		if path == "" {
			break
		}
		sites++
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("nil at %s: panic: %v", path, p)
				}
			}()
			if err := structs.CheckDecoded(req); err != nil {
				return
			}
			if _, err := prepareJob(req.Job, req.Namespace, nil); err != nil {
				if code, _ := structs.ErrorCode(err); code != structs.ErrCodeBadRequest {
					t.Errorf("nil at %s: %v", path, err)
				}
			}
		}()
	}
	if sites < 20 {
		t.Fatalf("only %d nil sites tried", sites)
	}
	t.Logf("%d nil sites tried", sites)
}

// TestEndpointsNilAtEverySite: the same sweep through a real server's
// write endpoints that take whole objects (Node.Register, Node.UpdateAlloc,
// Job.Register, Job.Plan): each answer is a success or a 4xx, never the
// 500 of a recovered panic.
func TestEndpointsNilAtEverySite(t *testing.T) {
	s := testServer(t, nil)
	type call struct {
		method string
		args   func() any
		reply  func() any
	}
	calls := []call{
		{structs.NodeRegisterRPC, func() any { return &structs.NodeRegisterRequest{} }, func() any { return &structs.NodeUpdateResponse{} }},
		{structs.NodeUpdateAllocRPC, func() any { return &structs.AllocUpdateRequest{} }, func() any { return &structs.GenericResponse{} }},
		{structs.JobRegisterRPC, func() any { return &structs.JobRegisterRequest{} }, func() any { return &structs.JobRegisterResponse{} }},
		{structs.JobPlanRPC, func() any { return &structs.JobPlanRequest{} }, func() any { return &structs.JobPlanResponse{} }},
	}
	for _, c := range calls {
		sites := 0
		for n := 0; ; n++ {
			args := c.args()
			fillValue(reflect.ValueOf(args).Elem(), 0)
			k := n
			path := nilSite(reflect.ValueOf(args).Elem(), &k, "")
			if path == "" {
				break
			}
			sites++
			if err := s.RPC(c.method, args, c.reply()); err != nil {
				if code, msg := structs.ErrorCode(err); code >= 500 {
					t.Errorf("%s with nil at %s: %d %s", c.method, path, code, msg)
				}
			}
		}
		t.Logf("%s: %d nil sites", c.method, sites)
	}
}
