package agent

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// Unknown JSON fields of a submitted job are ignored, as encoding/json
// (and Nomad) does; the register response lists them in Warnings so a
// misspelt field is not lost silently.

var jsonUnmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// unknownFields returns the paths ("Job.TaskGroups[0].Tasks[0].Foo") of the
// members of raw (JSON) that no field of t takes, matched as encoding/json
// matches (json tags, then case-insensitive names, embedded structs
// flattened). Values of free-form fields (any, map[string]any) are not
// inspected. Sorted.
func unknownFields(raw json.RawMessage, root string, t reflect.Type) []string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	walkUnknown(root, v, t, &out)
	sort.Strings(out)
	return out
}

func walkUnknown(path string, v any, t reflect.Type, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil || reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, val := range obj {
			ft, found := jsonField(t, k)
			if !found {
				*out = append(*out, path+"."+k)
				continue
			}
			walkUnknown(path+"."+k, val, ft, out)
		}
	case reflect.Slice, reflect.Array:
		list, ok := v.([]any)
		if !ok {
			return // []byte is a base64 string
		}
		for i, e := range list {
			walkUnknown(fmt.Sprintf("%s[%d]", path, i), e, t.Elem(), out)
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, e := range obj {
			walkUnknown(path+"."+k, e, t.Elem(), out)
		}
	}
}

// jsonField finds the field of struct t that encoding/json decodes key
// into: an exact tag or name first, then a case-insensitive match.
func jsonField(t reflect.Type, key string) (reflect.Type, bool) {
	var fold reflect.Type
	var visit func(t reflect.Type) (reflect.Type, bool)
	visit = func(t reflect.Type) (reflect.Type, bool) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				et := f.Type
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					if ft, ok := visit(et); ok {
						return ft, true
					}
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if name == key {
				return f.Type, true
			}
			if fold == nil && strings.EqualFold(name, key) {
				fold = f.Type
			}
		}
		return nil, false
	}
	if ft, ok := visit(t); ok {
		return ft, true
	}
	return fold, fold != nil
}

// fieldWarnings formats unknown field paths as Nomad formats its register
// warnings ("" when there are none).
func fieldWarnings(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	var b strings.Builder
	if len(paths) == 1 {
		b.WriteString("1 warning:\n")
	} else {
		fmt.Fprintf(&b, "%d warnings:\n", len(paths))
	}
	for _, p := range paths {
		fmt.Fprintf(&b, "\n* %s: unknown field, ignored", p)
	}
	return b.String()
}

// registerWarnings lists the unknown fields of a register body's Job.
func registerWarnings(body []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return ""
	}
	for k, v := range top {
		if strings.EqualFold(k, "Job") {
			return fieldWarnings(unknownFields(v, "Job", reflect.TypeOf(structs.Job{})))
		}
	}
	return ""
}

// joinWarnings joins non-empty warning texts with a blank line.
func joinWarnings(ws ...string) string {
	var keep []string
	for _, w := range ws {
		if w != "" {
			keep = append(keep, w)
		}
	}
	return strings.Join(keep, "\n\n")
}
