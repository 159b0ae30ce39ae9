package schema

import (
	"sort"
	"strings"
)

// Kind is the type of a config value, as it arrives decoded from HCL
// (jobspec), JSON (the HTTP API) or msgpack (RPC and the plugin wire).
type Kind uint8

// The kinds of config values.
const (
	String   Kind = iota + 1 // a string
	Bool                     // true or false
	Number                   // an integer or a decimal
	Duration                 // a duration string ("10s") or a whole number of nanoseconds
	Scalar                   // a string, number or bool, used as its text
	List                     // a list of Field.Elem values
	Map                      // names to Field.Elem values: a map, or blocks whose arguments merge
	Block                    // one nested block (or a map) with Field.Block's keys
	Blocks                   // a repeatable nested block: a map or a list of maps
	Any                      // anything: accepted for compatibility with Nomad, not read
)

// Field is one key of a config block.
type Field struct {
	Name string
	Kind Kind
	// Elem is the kind of a List's elements or a Map's values (String,
	// Bool, Number, Scalar or Any).
	Elem Kind
	// Required: the key must be set (to a non-null value).
	Required bool
	// Block holds the keys of a Block or Blocks field.
	Block *Schema
}

// Schema is the shape of one config block: a driver's task config, or a
// block nested in it.
type Schema struct {
	Fields []Field
	// AnyOf lists sets of keys of which at least one must be set (qemu:
	// image_path or kernel).
	AnyOf [][]string
}

// Lookup finds drivers' task-config schemas by the name a job's task gives
// in `driver`. drivers.Catalog implements it; jobspec, jobcheck and the
// server take one so they check jobs without linking any driver.
type Lookup interface {
	// TaskSchema returns the named driver's schema; ok is false when no
	// such driver exists. A known driver with a nil schema has its config
	// left unchecked.
	TaskSchema(driver string) (s *Schema, ok bool)
	// Names lists the known driver names, for suggestions.
	Names() []string
}

// Field returns the field named name.
func (s *Schema) Field(name string) (Field, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Keys lists the schema's keys, sorted.
func (s *Schema) Keys() []string {
	out := make([]string, 0, len(s.Fields))
	for _, f := range s.Fields {
		out = append(out, f.Name)
	}
	sort.Strings(out)
	return out
}

// TypeName describes the field's kind for messages: "a string", "a list of
// strings", ...
func (f Field) TypeName() string {
	switch f.Kind {
	case List:
		return "a list of " + plural(f.Elem)
	case Map:
		return "a map of " + plural(f.Elem)
	}
	return kindName(f.Kind)
}

func kindName(k Kind) string {
	switch k {
	case String:
		return "a string"
	case Bool:
		return "a bool"
	case Number:
		return "a number"
	case Duration:
		return `a duration ("10s")`
	case Scalar:
		return "a string, number or bool"
	case Block:
		return "a block"
	case Blocks:
		return "a block or a list of blocks"
	}
	return "a value"
}

func plural(k Kind) string {
	switch k {
	case String, Scalar:
		return "strings"
	case Bool:
		return "bools"
	case Number:
		return "numbers"
	}
	return "values"
}

// UnknownDriver is the message and hint for a task whose driver l does not
// know: `unknown driver "raw_exce"` and `Did you mean "raw_exec"?` (or the
// list of known drivers when none is close).
func UnknownDriver(l Lookup, name string) (msg, hint string) {
	return "unknown driver " + quote(name), hintFor(name, l.Names(), "drivers")
}

// hintFor is `Did you mean "x"?` for the candidate closest to typed, else
// the list of candidates.
func hintFor(typed string, candidates []string, what string) string {
	if h := strings.TrimSpace(didYouMean(typed, candidates)); h != "" {
		return h
	}
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	return "known " + what + ": " + strings.Join(sorted, ", ")
}
