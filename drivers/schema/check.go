package schema

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nomadish/nomadish/internal/suggest"
)

// ProblemKind says what is wrong with a config.
type ProblemKind uint8

// The kinds of problems Check reports.
const (
	Unknown   ProblemKind = iota + 1 // a key the schema does not have
	WrongType                        // a value of the wrong type
	Missing                          // a required key not set
)

// Step is one step from a config's top to a nested block: the key, and the
// block's index when the key holds a list of blocks (-1 when it holds one).
type Step struct {
	Key   string
	Index int
}

// Problem is one thing wrong with a config.
type Problem struct {
	// Path leads from the config's top to the block holding Key (empty:
	// the config itself).
	Path []Step
	// Key is the key concerned: unknown, mistyped or missing.
	Key  string
	Kind ProblemKind
	// Msg says what is wrong: `unknown key "comand"`, `key "privileged"
	// must be a bool`, `missing required key "image"`.
	Msg string
	// Hint is `Did you mean "command"?` or the known keys (Unknown), what
	// was given (WrongType: `got a string`), or "".
	Hint string
}

// Where renders Path as "mount[0].volume_options" ("" at the top).
func (p Problem) Where() string {
	var b strings.Builder
	for i, s := range p.Path {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Key)
		if s.Index >= 0 {
			fmt.Fprintf(&b, "[%d]", s.Index)
		}
	}
	return b.String()
}

// Error is "where: msg; hint", without the empty parts.
func (p Problem) Error() string {
	s := p.Msg
	if w := p.Where(); w != "" {
		s = w + ": " + s
	}
	if p.Hint != "" {
		s += "; " + p.Hint
	}
	return s
}

// Check returns every problem of config against s, in a stable order (by
// place, then key). A key set to null counts as unset. It only reads config.
func (s *Schema) Check(config map[string]any) []Problem {
	var c checker
	c.block(s, config, nil)
	return c.probs
}

// Validate is Check as one error (nil when there is no problem): the
// problems joined with "; ". Drivers call it before reading their config.
func (s *Schema) Validate(config map[string]any) error {
	probs := s.Check(config)
	if len(probs) == 0 {
		return nil
	}
	msgs := make([]string, len(probs))
	for i, p := range probs {
		msgs[i] = p.Error()
	}
	return errors.New(strings.Join(msgs, "; "))
}

type checker struct{ probs []Problem }

func (c *checker) add(path []Step, key string, kind ProblemKind, msg, hint string) {
	c.probs = append(c.probs, Problem{Path: path, Key: key, Kind: kind, Msg: msg, Hint: hint})
}

func (c *checker) block(s *Schema, m map[string]any, path []Step) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	meant := map[string]bool{} // keys an unknown key is a likely typo of
	for _, k := range keys {
		f, ok := s.Field(k)
		if !ok {
			c.add(path, k, Unknown, "unknown key "+quote(k), hintFor(k, s.Keys(), "keys"))
			meant[suggest.Closest(k, s.Keys())] = true
			continue
		}
		if m[k] != nil {
			c.value(f, m[k], path)
		}
	}
	// A missing key that a typo's hint names is not reported twice.
	set := func(k string) bool { return m[k] != nil || meant[k] }
	for _, f := range s.Fields {
		if f.Required && !set(f.Name) {
			c.add(path, f.Name, Missing, "missing required key "+quote(f.Name), "")
		}
	}
	for _, group := range s.AnyOf {
		ok := false
		for _, k := range group {
			ok = ok || set(k)
		}
		if !ok && len(group) > 0 {
			qs := make([]string, len(group))
			for i, k := range group {
				qs[i] = quote(k)
			}
			c.add(path, group[0], Missing, "missing required key: one of "+strings.Join(qs, ", ")+" must be set", "")
		}
	}
}

// value checks one set value of field f in the block at path.
func (c *checker) value(f Field, v any, path []Step) {
	wrong := func(detail string) {
		c.add(path, f.Name, WrongType, fmt.Sprintf("key %q must be %s", f.Name, f.TypeName()), "got "+detail)
	}
	switch f.Kind {
	case List:
		l, ok := asList(v)
		if !ok {
			wrong(typeOf(v))
			return
		}
		for i, e := range l {
			if !scalarIs(f.Elem, e) {
				wrong(fmt.Sprintf("a list whose element %d is %s", i, typeOf(e)))
				return
			}
		}
	case Map:
		maps, ok := asMaps(v)
		if !ok {
			wrong(typeOf(v))
			return
		}
		for _, m := range maps {
			for _, k := range sortedKeys(m) {
				if !scalarIs(f.Elem, m[k]) {
					wrong(fmt.Sprintf("a map whose %q is %s", k, typeOf(m[k])))
					return
				}
			}
		}
	case Block, Blocks:
		c.nested(f, v, path, wrong)
	case Duration:
		if s, ok := v.(string); ok {
			if _, err := time.ParseDuration(s); err != nil {
				wrong(fmt.Sprintf("%q (%v)", s, err))
			}
			return
		}
		if !isInteger(v) {
			wrong(typeOf(v))
		}
	default:
		if !scalarIs(f.Kind, v) {
			wrong(typeOf(v))
		}
	}
}

// nested checks a Block or Blocks value: a map, or a list of maps (one for
// a Block), each against f.Block.
func (c *checker) nested(f Field, v any, path []Step, wrong func(string)) {
	if m, ok := asMap(v); ok {
		c.block(f.Block, m, appendStep(path, Step{Key: f.Name, Index: -1}))
		return
	}
	l, ok := asList(v)
	if !ok {
		wrong(typeOf(v))
		return
	}
	if f.Kind == Block && len(l) > 1 {
		wrong(fmt.Sprintf("%d blocks", len(l)))
		return
	}
	for i, e := range l {
		m, ok := asMap(e)
		if !ok {
			wrong(fmt.Sprintf("a list whose element %d is %s", i, typeOf(e)))
			return
		}
		c.block(f.Block, m, appendStep(path, Step{Key: f.Name, Index: i}))
	}
}

func appendStep(path []Step, s Step) []Step {
	return append(path[:len(path):len(path)], s)
}

// scalarIs reports whether v is of the scalar kind k (Any: anything).
func scalarIs(k Kind, v any) bool {
	switch k {
	case String:
		_, ok := v.(string)
		return ok
	case Bool:
		_, ok := v.(bool)
		return ok
	case Number:
		return isNumber(v)
	case Scalar:
		switch v.(type) {
		case string, bool:
			return true
		}
		return isNumber(v)
	case Any:
		return true
	}
	return false
}

func isNumber(v any) bool {
	switch reflect.ValueOf(v).Kind() {
	case reflect.Float32, reflect.Float64:
		return true
	}
	return isInteger(v)
}

func isInteger(v any) bool {
	switch reflect.ValueOf(v).Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// asList returns a list's elements ([]any, []string, ...).
func asList(v any) ([]any, bool) {
	if l, ok := v.([]any); ok {
		return l, true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

// asMap returns a string-keyed map as map[string]any.
func asMap(v any) (map[string]any, bool) {
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	out := make(map[string]any, rv.Len())
	for it := rv.MapRange(); it.Next(); {
		out[it.Key().String()] = it.Value().Interface()
	}
	return out, true
}

// asMaps accepts a map or a list of maps (blocks whose arguments merge).
func asMaps(v any) ([]map[string]any, bool) {
	if m, ok := asMap(v); ok {
		return []map[string]any{m}, true
	}
	l, ok := asList(v)
	if !ok {
		return nil, false
	}
	out := make([]map[string]any, 0, len(l))
	for _, e := range l {
		m, ok := asMap(e)
		if !ok {
			return nil, false
		}
		out = append(out, m)
	}
	return out, true
}

// typeOf names v's type for messages: "a string", "a list", "null".
func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a bool"
	}
	if isNumber(v) {
		return "a number"
	}
	if _, ok := asMap(v); ok {
		return "a map"
	}
	if _, ok := asList(v); ok {
		return "a list"
	}
	return fmt.Sprintf("a %T", v)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func quote(s string) string { return strconv.Quote(s) }

func didYouMean(typed string, candidates []string) string {
	return suggest.DidYouMean(typed, candidates)
}
