package template

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// VarItems is what nomadVar returns: the variable's items by key
// ({{ .password }}, {{ range $k, $v := ... }}, .Keys, .Values).
type VarItems map[string]string

// VarMeta is a variable's metadata (nomadVarList's elements, .Metadata).
type VarMeta struct {
	Namespace, Path          string
	CreateIndex, ModifyIndex uint64
	CreateTime, ModifyTime   time.Time
}

// Keys returns the item keys, sorted.
func (v VarItems) Keys() []string { return sortedKeys(v) }

// Values returns the item values in key order.
func (v VarItems) Values() []string {
	out := make([]string, 0, len(v))
	for _, k := range sortedKeys(v) {
		out = append(out, v[k])
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

// funcs returns the function map of one rendering.
func (rc *renderCtx) funcs() template.FuncMap {
	m := template.FuncMap{
		"env": func(k string) string { return rc.in.Env[k] },
		"envOrDefault": func(k, def string) string {
			if v, ok := rc.in.Env[k]; ok {
				return v
			}
			return def
		},
		"mustEnv": func(k string) (string, error) {
			if v, ok := rc.in.Env[k]; ok {
				return v, nil
			}
			return "", fmt.Errorf("environment variable %q is not set", k)
		},
		"file": func(p string) (string, error) {
			b, err := ReadTaskFile(rc.in.Dirs.TaskDir, p)
			return string(b), err
		},
		"nomadVar":       rc.nomadVar,
		"nomadVarExists": rc.nomadVarExists,
		"nomadVarList":   rc.nomadVarList,
		"nomadService":   rc.nomadService,  // services.go
		"nomadServices":  rc.nomadServices, // services.go
	}
	for k, v := range pureFuncs {
		m[k] = v
	}
	for _, n := range structs.TemplateUnavailableFuncNames {
		name := n
		m[name] = func(...any) (any, error) {
			return nil, fmt.Errorf("%s: Consul and Vault functions are not available in nomadish", name)
		}
	}
	return m
}

// varPath drops consul-template's "@namespace.region" suffix: a task reads
// its own namespace's variables.
func varPath(p string) string {
	if i := strings.IndexByte(p, '@'); i >= 0 {
		return p[:i]
	}
	return p
}

func (rc *renderCtx) nomadVar(p string) (VarItems, error) {
	p = varPath(p)
	v, ok, err := rc.lookupVar(p)
	if err != nil {
		return nil, fmt.Errorf("nomadVar %q: %w", p, err)
	}
	if !ok {
		return VarItems{}, nil
	}
	if v == nil {
		rc.block(p)
		return VarItems{}, nil
	}
	out := make(VarItems, len(v.Items))
	for k, val := range v.Items {
		out[k] = val
	}
	return out, nil
}

func (rc *renderCtx) nomadVarExists(p string) (bool, error) {
	p = varPath(p)
	v, _, err := rc.lookupVar(p)
	if err != nil {
		return false, fmt.Errorf("nomadVarExists %q: %w", p, err)
	}
	return v != nil, nil
}

func (rc *renderCtx) nomadVarList(prefix ...string) ([]VarMeta, error) {
	p := ""
	if len(prefix) > 1 {
		return nil, fmt.Errorf("nomadVarList takes at most one prefix, got %d", len(prefix))
	}
	if len(prefix) == 1 {
		p = varPath(prefix[0])
	}
	l, _, err := rc.lookupList(p)
	if err != nil {
		return nil, fmt.Errorf("nomadVarList %q: %w", p, err)
	}
	out := make([]VarMeta, 0, len(l))
	for _, v := range l {
		out = append(out, VarMeta{Namespace: v.Namespace, Path: v.Path, CreateIndex: v.CreateIndex,
			ModifyIndex: v.ModifyIndex, CreateTime: v.CreateTime, ModifyTime: v.ModifyTime})
	}
	return out, nil
}

// pureFuncs are the functions that read nothing but their arguments.
var pureFuncs = template.FuncMap{
	"toJSON": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
	"toJSONPretty": func(v any) (string, error) {
		b, err := json.MarshalIndent(v, "", "  ")
		return string(b), err
	},
	"parseJSON": func(s string) (any, error) {
		var v any
		if s == "" {
			return map[string]any{}, nil
		}
		err := json.Unmarshal([]byte(s), &v)
		return v, err
	},
	"parseInt":   func(s string) (int64, error) { return strconv.ParseInt(strings.TrimSpace(s), 10, 64) },
	"parseFloat": func(s string) (float64, error) { return strconv.ParseFloat(strings.TrimSpace(s), 64) },
	"parseBool":  func(s string) (bool, error) { return strconv.ParseBool(strings.TrimSpace(s)) },
	"split":      func(sep, s string) []string { return splitNonEmpty(s, sep) },
	"join":       func(sep string, l []string) string { return strings.Join(l, sep) },
	"replaceAll": func(from, to, s string) string { return strings.ReplaceAll(s, from, to) },
	"regexReplaceAll": func(re, to, s string) (string, error) {
		r, err := regexp.Compile(re)
		if err != nil {
			return "", err
		}
		return r.ReplaceAllString(s, to), nil
	},
	"regexMatch":   func(re, s string) (bool, error) { return regexp.MatchString(re, s) },
	"toUpper":      strings.ToUpper,
	"toLower":      strings.ToLower,
	"toTitle":      toTitle,
	"trimSpace":    strings.TrimSpace,
	"trimPrefix":   func(p, s string) string { return strings.TrimPrefix(s, p) },
	"trimSuffix":   func(p, s string) string { return strings.TrimSuffix(s, p) },
	"contains":     func(v, l any) (bool, error) { return in(l, v) },
	"containsAny":  func(vs, l any) (bool, error) { return containsN(l, vs, false) },
	"containsAll":  func(vs, l any) (bool, error) { return containsN(l, vs, true) },
	"in":           in,
	"base64Encode": func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
	"base64Decode": func(s string) (string, error) {
		b, err := base64.StdEncoding.DecodeString(s)
		return string(b), err
	},
	"base64URLEncode": func(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) },
	"base64URLDecode": func(s string) (string, error) {
		b, err := base64.URLEncoding.DecodeString(s)
		return string(b), err
	},
	"sha256Hex": func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) },
	"md5sum":    func(s string) string { h := md5.Sum([]byte(s)); return hex.EncodeToString(h[:]) },
	"timestamp": func(layout ...string) string {
		if len(layout) > 0 {
			return time.Now().UTC().Format(layout[0])
		}
		return time.Now().UTC().Format(time.RFC3339)
	},
	"indent": func(n int, s string) string {
		pad := strings.Repeat(" ", n)
		return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
	},
	"add":      func(b, a any) (any, error) { return arith(a, b, '+') },
	"subtract": func(b, a any) (any, error) { return arith(a, b, '-') },
	"multiply": func(b, a any) (any, error) { return arith(a, b, '*') },
	"divide":   func(b, a any) (any, error) { return arith(a, b, '/') },
	"modulo":   func(b, a any) (any, error) { return arith(a, b, '%') },
	"minimum":  func(b, a any) (any, error) { return arith(a, b, 'm') },
	"maximum":  func(b, a any) (any, error) { return arith(a, b, 'M') },
	"loop":     loop,
	"sprig_default": func(def any, v ...any) any {
		if len(v) == 0 || empty(v[0]) {
			return def
		}
		return v[0]
	},
	"sprig_empty": empty,
	"sprig_coalesce": func(vs ...any) any {
		for _, v := range vs {
			if !empty(v) {
				return v
			}
		}
		return nil
	},
	"sprig_ternary": func(a, b any, c bool) any {
		if c {
			return a
		}
		return b
	},
	"sprig_list": func(vs ...any) []any { return vs },
	"sprig_dict": func(kv ...any) (map[string]any, error) {
		if len(kv)%2 != 0 {
			return nil, fmt.Errorf("sprig_dict needs key/value pairs, got %d arguments", len(kv))
		}
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[fmt.Sprint(kv[i])] = kv[i+1]
		}
		return m, nil
	},
	"sprig_quote":     func(s any) string { return strconv.Quote(fmt.Sprint(s)) },
	"sprig_squote":    func(s any) string { return "'" + fmt.Sprint(s) + "'" },
	"sprig_upper":     strings.ToUpper,
	"sprig_lower":     strings.ToLower,
	"sprig_trim":      strings.TrimSpace,
	"sprig_replace":   func(from, to, s string) string { return strings.ReplaceAll(s, from, to) },
	"sprig_hasPrefix": func(p, s string) bool { return strings.HasPrefix(s, p) },
	"sprig_hasSuffix": func(p, s string) bool { return strings.HasSuffix(s, p) },
	"sprig_contains":  func(sub, s string) bool { return strings.Contains(s, sub) },
	"sprig_join": func(sep string, l any) string {
		var parts []string
		rv := reflect.ValueOf(l)
		if rv.Kind() == reflect.Slice {
			for i := 0; i < rv.Len(); i++ {
				parts = append(parts, fmt.Sprint(rv.Index(i).Interface()))
			}
		}
		return strings.Join(parts, sep)
	},
	"sprig_splitList": func(sep, s string) []string { return strings.Split(s, sep) },
	"sprig_toString":  func(v any) string { return fmt.Sprint(v) },
	"sprig_b64enc":    func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
	"sprig_b64dec": func(s string) (string, error) {
		b, err := base64.StdEncoding.DecodeString(s)
		return string(b), err
	},
	"sprig_nospace": func(s string) string { return strings.Join(strings.Fields(s), "") },
	"sprig_repeat": func(n int, s string) (string, error) {
		if n > 0 && len(s) > 0 && n > MaxRenderedBytes/len(s) {
			return "", fmt.Errorf("sprig_repeat: %d copies of %d bytes is over the limit of %d bytes", n, len(s), MaxRenderedBytes)
		}
		return strings.Repeat(s, max(n, 0)), nil
	},
}
