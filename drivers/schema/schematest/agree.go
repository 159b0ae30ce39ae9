// Package schematest holds the test that keeps a driver's config parser and
// its declared schema.Schema from drifting apart (Agree).
package schematest

import (
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/drivers/schema"
)

// Parse is a driver's task-config parser under test: what it decoded, or
// its error.
type Parse func(config map[string]any) (any, error)

// Options adjust Agree's sample configs where a parser checks more than
// types. Paths name keys as "mount.type" ("" is the config's top).
type Options struct {
	// Samples replaces the value Agree sets a key to.
	Samples map[string]any
	// Base adds keys to the smallest valid block at a path (besides its
	// required keys), e.g. "mount": {"source": "/x"}.
	Base map[string]map[string]any
	// IgnoresUnknown: the parser ignores keys it does not read instead of
	// refusing them (exec, raw_exec); Agree then checks that an undeclared
	// key changes nothing it returns.
	IgnoresUnknown bool
}

// Agree fails t unless parse and s agree on keys, both ways:
//   - parse refuses a key s does not declare (it checks config against s),
//     or with IgnoresUnknown ignores it;
//   - parse accepts the smallest valid config (s's required keys) and
//     every key s declares, nested ones included, changes what parse
//     returns when set (Any keys, accepted and not read, are skipped).
func Agree(t testing.TB, s *schema.Schema, parse Parse, o Options) {
	t.Helper()
	a := &agree{t: t, parse: parse, o: o}
	base := a.base(s, "")
	if _, err := parse(base); err != nil {
		t.Fatalf("the smallest valid config %v: %v", base, err)
	}
	bad := maps.Clone(base)
	bad["zz_not_a_key"] = "x"
	r0, _ := parse(base)
	switch r1, err := parse(bad); {
	case o.IgnoresUnknown && (err != nil || !reflect.DeepEqual(r0, r1)):
		t.Errorf("a key the schema does not declare: parse = %v, %v; want it ignored", r1, err)
	case !o.IgnoresUnknown && (err == nil || !strings.Contains(err.Error(), "zz_not_a_key")):
		t.Errorf("a key the schema does not declare: parse error %v, want one naming it", err)
	}
	a.walk(s, "", base, func(b map[string]any) map[string]any { return b })
}

type agree struct {
	t     testing.TB
	parse Parse
	o     Options
}

// base is the smallest valid block of s at path: its required keys, the
// first key of each AnyOf group and Options.Base's keys.
func (a *agree) base(s *schema.Schema, path string) map[string]any {
	b := map[string]any{}
	for _, f := range s.Fields {
		if f.Required {
			b[f.Name] = a.sample(f, join(path, f.Name), false)
		}
	}
	for _, g := range s.AnyOf {
		if f, ok := s.Field(g[0]); ok {
			b[f.Name] = a.sample(f, join(path, f.Name), false)
		}
	}
	maps.Copy(b, a.o.Base[path])
	return b
}

// walk sets each key of s in turn in the block base (placed in a whole
// config by place) and checks that parse reads it.
func (a *agree) walk(s *schema.Schema, path string, base map[string]any, place func(map[string]any) map[string]any) {
	for _, f := range s.Fields {
		key := join(path, f.Name)
		if f.Kind == schema.Any {
			continue
		}
		with := maps.Clone(base)
		with[f.Name] = a.sample(f, key, base[f.Name] != nil)
		r0, err0 := a.parse(place(base))
		r1, err1 := a.parse(place(with))
		switch {
		case err0 != nil || err1 != nil:
			a.t.Errorf("%s: parse without it: %v; with %v: %v", key, err0, with[f.Name], err1)
		case reflect.DeepEqual(r0, r1):
			a.t.Errorf("%s: declared in the schema but the parser does not read it (setting it to %v changes nothing)", key, with[f.Name])
		}
		if f.Kind == schema.Block || f.Kind == schema.Blocks {
			f := f
			a.walk(f.Block, key, a.base(f.Block, key), func(b map[string]any) map[string]any {
				outer := maps.Clone(base)
				outer[f.Name] = wrap(f, b)
				return place(outer)
			})
		}
	}
}

// sample is a valid value for f (alt: a second one, different from the
// first).
func (a *agree) sample(f schema.Field, path string, alt bool) any {
	if v, ok := a.o.Samples[path]; ok && !alt {
		return v
	}
	word := "sample-" + f.Name
	if alt {
		word = "other-" + f.Name
	}
	switch f.Kind {
	case schema.Bool:
		return !alt
	case schema.Number:
		return int64(map[bool]int{false: 7, true: 8}[alt])
	case schema.Duration:
		return map[bool]string{false: "7s", true: "8s"}[alt]
	case schema.List:
		return []any{elemSample(f.Elem, word)}
	case schema.Map:
		return map[string]any{"sample": elemSample(f.Elem, word)}
	case schema.Block, schema.Blocks:
		return wrap(f, a.base(f.Block, path))
	}
	return word
}

func elemSample(k schema.Kind, word string) any {
	switch k {
	case schema.Number:
		return int64(7)
	case schema.Bool:
		return true
	}
	return word
}

// wrap is a block as a Block (a map) or Blocks (a list of one) value.
func wrap(f schema.Field, b map[string]any) any {
	if f.Kind == schema.Blocks {
		return []any{b}
	}
	return b
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return fmt.Sprintf("%s.%s", path, key)
}
