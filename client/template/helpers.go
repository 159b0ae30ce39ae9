package template

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

func sortStrings(s []string) { sort.Strings(s) }

// splitNonEmpty is consul-template's split: an empty string gives no parts.
func splitNonEmpty(s, sep string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, sep)
}

func toTitle(s string) string {
	prev := ' '
	return strings.Map(func(r rune) rune {
		defer func() { prev = r }()
		if unicode.IsSpace(prev) || prev == '-' || prev == '_' {
			return unicode.ToTitle(r)
		}
		return r
	}, s)
}

// containsN reports whether l holds any (all: every) element of the list vs.
func containsN(l, vs any, all bool) (bool, error) {
	rv := reflect.ValueOf(vs)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return false, fmt.Errorf("expected a list of values, got %T", vs)
	}
	for i := 0; i < rv.Len(); i++ {
		ok, err := in(l, rv.Index(i).Interface())
		if err != nil {
			return false, err
		}
		if ok != all {
			return !all, nil
		}
	}
	return all, nil
}

// in reports whether v is an element of l (a list) or a substring of l (a
// string), as consul-template's in.
func in(l, v any) (bool, error) {
	lv := reflect.ValueOf(l)
	switch lv.Kind() {
	case reflect.String:
		return strings.Contains(lv.String(), fmt.Sprint(v)), nil
	case reflect.Slice, reflect.Array:
		for i := 0; i < lv.Len(); i++ {
			if reflect.DeepEqual(lv.Index(i).Interface(), v) {
				return true, nil
			}
		}
		return false, nil
	case reflect.Map:
		return lv.MapIndex(reflect.ValueOf(v)).IsValid(), nil
	}
	return false, fmt.Errorf("in: cannot look into a %T", l)
}

// number converts a template value to int64 or float64.
func number(v any) (int64, float64, bool, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), 0, false, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(rv.Uint()), 0, false, nil
	case reflect.Float32, reflect.Float64:
		return 0, rv.Float(), true, nil
	case reflect.String:
		if i, err := strconv.ParseInt(rv.String(), 10, 64); err == nil {
			return i, 0, false, nil
		}
		if f, err := strconv.ParseFloat(rv.String(), 64); err == nil {
			return 0, f, true, nil
		}
	}
	return 0, 0, false, fmt.Errorf("%v (%T) is not a number", v, v)
}

// arith applies op to a and b (consul-template's argument order is
// reversed by the callers: {{ 2 | add 3 }} is 3+2... add b a).
func arith(a, b any, op rune) (any, error) {
	ai, af, aFloat, err := number(a)
	if err != nil {
		return nil, err
	}
	bi, bf, bFloat, err := number(b)
	if err != nil {
		return nil, err
	}
	if aFloat || bFloat {
		if !aFloat {
			af = float64(ai)
		}
		if !bFloat {
			bf = float64(bi)
		}
		switch op {
		case '+':
			return af + bf, nil
		case '-':
			return af - bf, nil
		case '*':
			return af * bf, nil
		case '/':
			if bf == 0 {
				return nil, fmt.Errorf("division by zero")
			}
			return af / bf, nil
		case 'm':
			return min(af, bf), nil
		case 'M':
			return max(af, bf), nil
		}
		return nil, fmt.Errorf("modulo needs whole numbers")
	}
	switch op {
	case '+':
		return ai + bi, nil
	case '-':
		return ai - bi, nil
	case '*':
		return ai * bi, nil
	case '/', '%':
		if bi == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		if op == '/' {
			return ai / bi, nil
		}
		return ai % bi, nil
	case 'm':
		return min(ai, bi), nil
	}
	return max(ai, bi), nil
}

// maxLoop bounds loop's ranges: a template cannot render forever.
const maxLoop = 1 << 16

// loop returns [0, n) or [start, stop) as consul-template's loop.
func loop(ints ...int) ([]int, error) {
	var start, stop int
	switch len(ints) {
	case 1:
		stop = ints[0]
	case 2:
		start, stop = ints[0], ints[1]
	default:
		return nil, fmt.Errorf("loop takes 1 or 2 arguments, got %d", len(ints))
	}
	if stop-start > maxLoop {
		return nil, fmt.Errorf("loop of %d iterations is over the limit of %d", stop-start, maxLoop)
	}
	out := []int{}
	for i := start; i < stop; i++ {
		out = append(out, i)
	}
	return out, nil
}

// empty is sprig's empty: zero values, empty collections.
func empty(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return rv.Len() == 0
	case reflect.Bool:
		return !rv.Bool()
	case reflect.Ptr, reflect.Interface:
		return rv.IsNil()
	}
	return rv.IsZero()
}
