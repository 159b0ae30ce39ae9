package jobspec

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/nomadish/nomadish/drivers/schema"
	"github.com/nomadish/nomadish/internal/hclutil"
	"github.com/nomadish/nomadish/internal/suggest"
	"github.com/nomadish/nomadish/structs"
)

// ParseConfig is the input of Parse.
type ParseConfig struct {
	// Path names the job file in diagnostics; when Body is nil it is read.
	Path string
	// Body is the job file's content.
	Body []byte
	// ArgVars are "name=value" pairs from -var flags; they win over all else.
	ArgVars []string
	// VarFiles are HCL files of "name = value" attributes (-var-file).
	VarFiles []string
	// VarContent is the content of one more HCL var file, applied after
	// VarFiles (the HTTP API's /v1/jobs/parse "Variables"); diagnostics name
	// it "<var content>".
	VarContent []byte
	// Envs are "NOMAD_VAR_name=value" environment entries (others are ignored).
	Envs []string
	// Strict makes a var-file value for an undeclared variable an error
	// instead of a warning. A -var for an undeclared variable is always an error.
	Strict bool
	// Drivers, when set, checks each task's driver and its config block
	// against the drivers' schemas (the CLI and the agent pass
	// drivers/catalog.Builtin): an unknown driver, an unknown, mistyped or
	// missing config key is an error at its file:line:col. nil: not checked.
	Drivers schema.Lookup

	// limits overrides the default evaluation limits (tests).
	limits hclutil.Limits
}

// Error is what Parse returns for bad input: one or more error diagnostics.
// Its message has one line per diagnostic: "path:line:col: summary; detail".
type Error struct {
	Diags hcl.Diagnostics
}

func (e *Error) Error() string {
	lines := make([]string, 0, len(e.Diags))
	for _, d := range e.Diags {
		if d.Severity == hcl.DiagError {
			lines = append(lines, formatDiag(d))
		}
	}
	return strings.Join(lines, "\n")
}

// formatDiag renders one diagnostic as "path:line:col: summary; detail".
func formatDiag(d *hcl.Diagnostic) string {
	msg := d.Summary
	if d.Detail != "" {
		msg += "; " + d.Detail
	}
	if d.Subject == nil {
		return msg
	}
	s := d.Subject
	return fmt.Sprintf("%s:%d:%d: %s", s.Filename, s.Start.Line, s.Start.Column, msg)
}

// ParseFile reads and parses the job file at path with -var style values.
func ParseFile(path string, vars []string) (*structs.Job, error) {
	return Parse(&ParseConfig{Path: path, ArgVars: vars})
}

// Parse decodes a job file into a job. Blocks that Nomad accepts but nomadish
// does not implement yet are skipped; ParseWithWarnings reports them.
func Parse(cfg *ParseConfig) (*structs.Job, error) {
	job, _, err := ParseWithWarnings(cfg)
	return job, err
}

// ParseWithWarnings is Parse that also returns warnings, one per line
// "path:line:col: summary; detail", for what was accepted but ignored
// (e.g. a "service" block) or tolerated (an undeclared variable in a var file).
// The error, when non-nil, is an *Error.
func ParseWithWarnings(cfg *ParseConfig) (*structs.Job, []string, error) {
	if cfg == nil {
		return nil, nil, fmt.Errorf("jobspec: nil ParseConfig")
	}
	src := cfg.Body
	if src == nil {
		b, err := os.ReadFile(cfg.Path)
		if err != nil {
			return nil, nil, fmt.Errorf("jobspec: reading job file: %w", err)
		}
		src = b
	}
	path := cfg.Path
	if path == "" {
		path = "<input>"
	}
	p := &parser{cfg: cfg, path: path, src: src, lim: hclutil.NewLimiter(cfg.limits)}
	job := p.parse()
	p.checkTripped()
	sortDiags(p.diags)
	p.diags = hclutil.Compact(p.diags, 0)
	warnings := make([]string, 0)
	for _, d := range p.diags {
		if d.Severity == hcl.DiagWarning {
			warnings = append(warnings, formatDiag(d))
		}
	}
	if p.diags.HasErrors() {
		return nil, warnings, &Error{Diags: p.diags}
	}
	return job, warnings, nil
}

// parser holds the state of one Parse call.
type parser struct {
	cfg   *ParseConfig
	path  string
	src   []byte
	diags hcl.Diagnostics
	ctx   *hcl.EvalContext
	// lim bounds the parse (limits.go); bare is its context without
	// user functions, for variable defaults and var files.
	lim      *hclutil.Limiter
	bare     *hcl.EvalContext
	timedOut bool
	// restartSet holds, per decoded restart block, the attributes it set.
	restartSet map[*structs.RestartPolicy]map[string]bool
	// reschedReported holds the reschedule problems already reported.
	reschedReported map[string]bool
	// updateSet holds, per decoded update block, the attributes it set
	// (update.go).
	updateSet map[*structs.UpdateStrategy]map[string]bool
	// svcBlocks and checkBlocks hold the block each service and check was
	// decoded from, and consulWarned whether the job's one "consul"
	// provider warning was given (service.go).
	svcBlocks    map[*structs.Service]*hclsyntax.Block
	checkBlocks  map[*structs.ServiceCheck]*hclsyntax.Block
	consulWarned bool
}

func (p *parser) parse() *structs.Job {
	if !p.checkDepth(p.src, p.path, false) {
		return nil
	}
	file, diags := hclsyntax.ParseConfig(p.src, p.path, hcl.InitialPos)
	p.diags = append(p.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	body := file.Body.(*hclsyntax.Body)
	top := p.splitTop(body)
	if p.diags.HasErrors() {
		return nil
	}
	keepRuntimeInterpolations(body, p.src)
	p.lim.Instrument(body)
	p.ctx = p.lim.Context(functions())
	p.bare = p.lim.Context(nil)
	vars := p.decodeVariables(top.variables, top.variablesBlocks)
	if p.diags.HasErrors() {
		return nil
	}
	p.checkReferences(body, vars, top.locals)
	if p.diags.HasErrors() {
		return nil
	}
	p.ctx.Variables = map[string]cty.Value{"var": cty.ObjectVal(vars)}
	p.ctx.Variables["local"] = p.decodeLocals(top.locals)
	if p.diags.HasErrors() {
		return nil
	}
	return p.decodeJob(top.job)
}

// topLevel is the file's top-level blocks, sorted by kind.
type topLevel struct {
	job             *hclsyntax.Block
	variables       []*hclsyntax.Block
	variablesBlocks []*hclsyntax.Block
	locals          []*hclsyntax.Block
}

// topLevelBlocks are the blocks a job file holds.
var topLevelBlocks = []string{"job", "variable", "variables", "locals"}

func (p *parser) splitTop(body *hclsyntax.Body) topLevel {
	var top topLevel
	for _, attr := range body.Attributes {
		p.errorf(attr.NameRange, "Unsupported argument",
			"An argument named %q is not expected at the top level; a job file holds job, variable, variables and locals blocks.%s",
			attr.Name, suggest.DidYouMean(attr.Name, topLevelBlocks))
	}
	for _, b := range body.Blocks {
		switch b.Type {
		case "job":
			if !p.labels(b, "id") {
				continue
			}
			if top.job != nil {
				p.errorf(b.DefRange(), "Duplicate job block", "Only one job may be defined per file; the first is at %s.", hclutil.Pos(top.job.DefRange()))
				continue
			}
			top.job = b
		case "variable":
			if p.labels(b, "name") {
				top.variables = append(top.variables, b)
			}
		case "variables":
			if p.labels(b) {
				top.variablesBlocks = append(top.variablesBlocks, b)
			}
		case "locals":
			if p.labels(b) {
				top.locals = append(top.locals, b)
			}
		default:
			p.errorf(b.TypeRange, "Unsupported block type",
				"Blocks of type %q are not expected at the top level; a job file holds job, variable, variables and locals blocks.%s",
				b.Type, suggest.DidYouMean(b.Type, topLevelBlocks))
		}
	}
	if top.job == nil && !p.diags.HasErrors() {
		p.errorf(body.SrcRange, "Missing job block", "A job file must contain one job block.")
	}
	return top
}

// labels checks that b has exactly the named labels.
func (p *parser) labels(b *hclsyntax.Block, names ...string) bool {
	if len(b.Labels) == len(names) {
		return true
	}
	if len(b.Labels) < len(names) {
		p.errorf(b.OpenBraceRange, "Missing name for "+b.Type,
			"A %s block requires %d label(s): %s.", b.Type, len(names), strings.Join(names, ", "))
		return false
	}
	p.errorf(b.LabelRanges[len(names)], "Extraneous label for "+b.Type,
		"A %s block takes %d label(s); remove this one.", b.Type, len(names))
	return false
}

func (p *parser) errorf(rng hcl.Range, summary, detail string, args ...any) {
	r := rng
	p.diags = append(p.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: &r})
}

func (p *parser) warnf(rng hcl.Range, summary, detail string, args ...any) {
	r := rng
	p.diags = append(p.diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: &r})
}

// sortDiags orders diagnostics by file and position (stable), so messages
// read top to bottom whatever order the decoder visited the body in.
func sortDiags(diags hcl.Diagnostics) {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Subject, diags[j].Subject
		if a == nil || b == nil {
			return a == nil && b != nil
		}
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
}
