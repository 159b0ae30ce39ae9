package template

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"text/template"

	"github.com/nomadish/nomadish/structs"
)

// DepKind says what a dependency reads.
type DepKind uint8

// Dependency kinds.
const (
	DepVar  DepKind = iota + 1 // one variable (nomadVar, nomadVarExists)
	DepList                    // the variables under a prefix (nomadVarList)
)

// Dep is one thing a template read: a variable path or a list prefix.
type Dep struct {
	Kind DepKind
	Path string
}

func (d Dep) String() string {
	switch d.Kind {
	case DepService:
		return "nomadService(" + d.Path + ")"
	case DepServices:
		return "nomadServices"
	}
	if d.Kind == DepList {
		return "nomadVarList(" + d.Path + ")"
	}
	return "nomadVar(" + d.Path + ")"
}

// Data is what has been fetched for a task's templates: the state of each
// variable and list read so far, and each one's reader index. A present
// key with a nil Var is a variable known to be absent. Owned by one
// goroutine at a time (the Manager's lock).
type Data struct {
	Vars    map[string]*Var
	Lists   map[string][]*Var
	Indexes map[Dep]uint64
	// Services are the registrations of each service read (services.go),
	// ServiceNames the namespace's names under the key "".
	Services     map[string][]*Service
	ServiceNames map[string][]*ServiceStub
}

// NewData returns empty data.
func NewData() *Data {
	return &Data{Vars: map[string]*Var{}, Lists: map[string][]*Var{}, Indexes: map[Dep]uint64{},
		Services: map[string][]*Service{}, ServiceNames: map[string][]*ServiceStub{}}
}

// Input is what Render reads besides the template itself.
type Input struct {
	// Env is the task's environment (the env function).
	Env map[string]string
	// Dirs are the task's directories (file and source stay inside them).
	Dirs Dirs
	// Data holds the fetched variables; nil: nomadVar* fail with ErrNoVars.
	Data *Data
	// Services says a service reader backs Data's services; false:
	// nomadService* fail with ErrNoServices.
	Services bool
}

// Result is a rendering. When Unfetched or Blocked is not empty the output
// is incomplete and must not be written.
type Result struct {
	Out []byte
	// Deps are every variable and list the template read, sorted.
	Deps []Dep
	// Unfetched are deps read that Data does not hold yet: fetch them and
	// render again.
	Unfetched []Dep
	// Blocked are variables nomadVar read that do not exist: Nomad waits
	// for them before rendering.
	Blocked []Dep
}

// Complete reports whether the output may be written.
func (r *Result) Complete() bool { return len(r.Unfetched) == 0 && len(r.Blocked) == 0 }

// Render executes a template's text (its data, or src read from source by
// the caller) with the function map over in. It is pure apart from the
// file function, which reads inside in.Dirs. Errors name the template's
// destination: a parse error, a function's error, or a missing key with
// error_on_missing_key.
func Render(t *structs.Template, text string, in Input) (*Result, error) {
	l, r := t.LeftDelim, t.RightDelim
	if l == "" {
		l = structs.DefaultTemplateLeftDelim
	}
	if r == "" {
		r = structs.DefaultTemplateRightDelim
	}
	rc := &renderCtx{in: in, seen: map[Dep]bool{}}
	tmpl := template.New(t.DestPath).Delims(l, r).Funcs(rc.funcs())
	if t.ErrMissingKey {
		tmpl.Option("missingkey=error")
	} else {
		tmpl.Option("missingkey=zero")
	}
	if _, err := tmpl.Parse(text); err != nil {
		return nil, fmt.Errorf("parsing template %q: %w", t.DestPath, trimErr(err))
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&limitedWriter{buf: &buf}, nil); err != nil {
		return nil, fmt.Errorf("rendering template %q: %w", t.DestPath, trimErr(err))
	}
	res := &Result{Out: buf.Bytes(), Unfetched: rc.unfetched, Blocked: rc.blocked}
	for d := range rc.seen {
		res.Deps = append(res.Deps, d)
	}
	sortDeps(res.Deps)
	sortDeps(res.Unfetched)
	sortDeps(res.Blocked)
	return res, nil
}

// MaxRenderedBytes bounds one template's output: a loop cannot fill the
// client's memory or disk.
const MaxRenderedBytes = 16 << 20

// limitedWriter fails a write that would take buf past MaxRenderedBytes.
type limitedWriter struct{ buf *bytes.Buffer }

func (w *limitedWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > MaxRenderedBytes {
		return 0, fmt.Errorf("output over the limit of %d bytes", MaxRenderedBytes)
	}
	return w.buf.Write(p)
}

// trimErr drops text/template's "template: " prefix.
func trimErr(err error) error {
	if s := err.Error(); strings.HasPrefix(s, "template: ") {
		return &wrapped{msg: strings.TrimPrefix(s, "template: "), err: err}
	}
	return err
}

type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

func sortDeps(ds []Dep) {
	sort.Slice(ds, func(i, j int) bool {
		if ds[i].Kind != ds[j].Kind {
			return ds[i].Kind < ds[j].Kind
		}
		return ds[i].Path < ds[j].Path
	})
}

// renderCtx records what one rendering read.
type renderCtx struct {
	in        Input
	seen      map[Dep]bool
	unfetched []Dep
	blocked   []Dep
}

// lookupVar returns the variable at path, recording the dependency; ok is
// false when Data does not hold it yet.
func (rc *renderCtx) lookupVar(path string) (v *Var, ok bool, err error) {
	if rc.in.Data == nil {
		return nil, false, ErrNoVars
	}
	d := Dep{Kind: DepVar, Path: path}
	first := !rc.seen[d]
	rc.seen[d] = true
	v, ok = rc.in.Data.Vars[path]
	if !ok && first {
		rc.unfetched = append(rc.unfetched, d)
	}
	return v, ok, nil
}

func (rc *renderCtx) lookupList(prefix string) ([]*Var, bool, error) {
	if rc.in.Data == nil {
		return nil, false, ErrNoVars
	}
	d := Dep{Kind: DepList, Path: prefix}
	first := !rc.seen[d]
	rc.seen[d] = true
	l, ok := rc.in.Data.Lists[prefix]
	if !ok && first {
		rc.unfetched = append(rc.unfetched, d)
	}
	return l, ok, nil
}

func (rc *renderCtx) block(path string) {
	d := Dep{Kind: DepVar, Path: path}
	for _, b := range rc.blocked {
		if b == d {
			return
		}
	}
	rc.blocked = append(rc.blocked, d)
}
