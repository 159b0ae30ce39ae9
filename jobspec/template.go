package jobspec

import (
	"strings"
	"text/template"
	"time"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/structs"
)

// decodeTemplate decodes a task's template block and checks, at the
// value, what can be checked before the client renders it: the
// destination and source stay in the task directory, the change mode and
// its signal or script, perms, and the embedded template's syntax. It
// returns nil for a block with labels.
func (p *parser) decodeTemplate(b *hclsyntax.Block) *structs.Template {
	if !p.labels(b) {
		return nil
	}
	t := &structs.Template{}
	var uid, gid int
	p.decodeBody(b.Body, bodySpec{
		where: "template",
		attrs: map[string]any{
			"data": &t.EmbeddedTmpl, "source": &t.SourcePath, "destination": &t.DestPath,
			"change_mode": &t.ChangeMode, "change_signal": &t.ChangeSignal, "splay": &t.Splay,
			"perms": &t.Perms, "uid": &uid, "gid": &gid, "env": &t.Envvars,
			"left_delimiter": &t.LeftDelim, "right_delimiter": &t.RightDelim,
			"error_on_missing_key": &t.ErrMissingKey,
		},
		blocks: blockFuncs{
			"change_script": func(b *hclsyntax.Block) { t.ChangeScript = p.decodeChangeScript(b) },
			"wait":          func(b *hclsyntax.Block) { t.Wait = p.decodeTemplateWait(b) },
		},
	})
	attrs := b.Body.Attributes
	if _, ok := attrs["uid"]; ok {
		t.Uid = &uid
	}
	if _, ok := attrs["gid"]; ok {
		t.Gid = &gid
	}
	p.checkTemplate(b, t)
	return t
}

// checkTemplate reports a template's errors at the argument they concern.
func (p *parser) checkTemplate(b *hclsyntax.Block, t *structs.Template) {
	attrs := b.Body.Attributes
	at := func(name string) *hclsyntax.Attribute { return attrs[name] }
	if a := at("destination"); a == nil {
		p.errorf(b.TypeRange, "Missing template destination", "A template block requires a destination, the file to render relative to the task directory (e.g. \"local/app.conf\").")
	} else if err := structs.CheckTemplatePath("destination", t.DestPath, true); err != nil {
		p.errorf(a.Expr.Range(), "Invalid template destination", "%s.", err)
	}
	if a := at("source"); a != nil {
		if err := structs.CheckTemplatePath("source", t.SourcePath, false); err != nil {
			p.errorf(a.Expr.Range(), "Invalid template source", "%s.", err)
		}
		if at("data") != nil {
			p.errorf(a.NameRange, "Conflicting arguments", "Set source or data in a template block, not both.")
		}
	} else if at("data") == nil {
		p.errorf(b.TypeRange, "Missing template data", "A template block requires data (the template text) or source (a template file in the task directory).")
	}
	if a := at("change_mode"); a != nil {
		switch t.ChangeMode {
		case structs.TemplateChangeModeRestart, structs.TemplateChangeModeNoop, structs.TemplateChangeModeSignal, structs.TemplateChangeModeScript:
		default:
			p.errorf(a.Expr.Range(), "Invalid change_mode", "The change_mode %q is not one of %q, %q, %q or %q.", t.ChangeMode,
				structs.TemplateChangeModeRestart, structs.TemplateChangeModeSignal, structs.TemplateChangeModeNoop, structs.TemplateChangeModeScript)
		}
		if t.ChangeMode == structs.TemplateChangeModeSignal && t.ChangeSignal == "" {
			p.errorf(a.Expr.Range(), "Missing change_signal", "change_mode = \"signal\" requires change_signal (e.g. \"SIGHUP\").")
		}
		if t.ChangeMode == structs.TemplateChangeModeScript && (t.ChangeScript == nil || t.ChangeScript.Command == "") {
			p.errorf(a.Expr.Range(), "Missing change_script", "change_mode = \"script\" requires a change_script block with a command.")
		}
	}
	if a := at("perms"); a != nil {
		if _, err := structs.ParseTemplatePerms(t.Perms); err != nil {
			p.errorf(a.Expr.Range(), "Invalid perms", "%s.", err)
		}
	}
	if a := at("splay"); a != nil && t.Splay < 0 {
		p.errorf(a.Expr.Range(), "Invalid splay", "splay can't be negative.")
	}
	if a := at("data"); a != nil {
		p.checkTemplateSyntax(a, t)
	}
}

// checkTemplateSyntax parses the embedded template with text/template
// (functions unknown to the parser are stubbed: the client's function map
// decides), so a template that cannot render fails at submission.
func (p *parser) checkTemplateSyntax(a *hclsyntax.Attribute, t *structs.Template) {
	l, r := t.LeftDelim, t.RightDelim
	if l == "" {
		l = structs.DefaultTemplateLeftDelim
	}
	if r == "" {
		r = structs.DefaultTemplateRightDelim
	}
	tmpl := template.New("data").Delims(l, r).Option("missingkey=zero")
	tmpl.Funcs(templateFuncStubs)
	if _, err := tmpl.Parse(t.EmbeddedTmpl); err != nil {
		p.errorf(a.Expr.Range(), "Invalid template", "The template does not parse: %s.", strings.TrimPrefix(err.Error(), "template: "))
	}
}

func (p *parser) decodeChangeScript(b *hclsyntax.Block) *structs.ChangeScript {
	cs := &structs.ChangeScript{}
	if !p.labels(b) {
		return cs
	}
	p.decodeBody(b.Body, bodySpec{
		where: "change_script",
		attrs: map[string]any{"command": &cs.Command, "args": &cs.Args, "timeout": &cs.Timeout, "fail_on_error": &cs.FailOnError},
	})
	if _, ok := b.Body.Attributes["command"]; !ok {
		p.errorf(b.TypeRange, "Missing command", "A change_script block requires a command.")
	}
	if a, ok := b.Body.Attributes["timeout"]; ok && cs.Timeout < 0 {
		p.errorf(a.Expr.Range(), "Invalid timeout", "timeout can't be negative.")
	}
	return cs
}

func (p *parser) decodeTemplateWait(b *hclsyntax.Block) *structs.WaitConfig {
	w := &structs.WaitConfig{}
	if !p.labels(b) {
		return w
	}
	var lo, hi time.Duration
	p.decodeBody(b.Body, bodySpec{where: "wait", attrs: map[string]any{"min": &lo, "max": &hi}})
	attrs := b.Body.Attributes
	if _, ok := attrs["min"]; ok {
		w.Min = &lo
	}
	if _, ok := attrs["max"]; ok {
		w.Max = &hi
	}
	if a, ok := attrs["max"]; ok && w.Min != nil && hi < lo {
		p.errorf(a.Expr.Range(), "Invalid wait", "max (%v) must not be less than min (%v).", hi, lo)
	}
	return w
}

// templateFuncStubs stand in for the client's template functions when a
// template's syntax is checked: only the names matter to the parser.
var templateFuncStubs = func() template.FuncMap {
	m := template.FuncMap{}
	for _, names := range [][]string{structs.TemplateFuncNames, structs.TemplateUnavailableFuncNames} {
		for _, n := range names {
			m[n] = func(...any) any { return nil }
		}
	}
	return m
}()
