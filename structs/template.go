package structs

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"
)

// Template change modes (Nomad's): what the client does to a running task
// when a template's rendering changes.
const (
	TemplateChangeModeRestart = "restart"
	TemplateChangeModeSignal  = "signal"
	TemplateChangeModeNoop    = "noop"
	TemplateChangeModeScript  = "script"
)

// Template defaults (Nomad's).
const (
	DefaultTemplateSplay         = 5 * time.Second
	DefaultTemplatePerms         = "0644"
	DefaultChangeScriptTimeout   = 5 * time.Second
	DefaultTemplateLeftDelim     = "{{"
	DefaultTemplateRightDelim    = "}}"
	MaxEmbeddedTemplateBytes     = 1 << 20 // a template's data
	templateDestinationHintInSub = "use a path relative to the task directory (local/, secrets/, alloc/) or start it with ${NOMAD_TASK_DIR}, ${NOMAD_SECRETS_DIR} or ${NOMAD_ALLOC_DIR}"
)

// Template is a task's template block: a file rendered by the client before
// the task starts and re-rendered when what it reads changes. JSON field
// names are Nomad's.
type Template struct {
	SourcePath    string // a file inside the task dir to render (source)
	DestPath      string // where to write, relative to the task dir (destination)
	EmbeddedTmpl  string // the template text (data)
	ChangeMode    string
	ChangeSignal  string
	ChangeScript  *ChangeScript
	Splay         time.Duration
	Perms         string // octal, e.g. "0644"
	Uid           *int
	Gid           *int
	LeftDelim     string
	RightDelim    string
	Envvars       bool // env = true: the rendering is KEY=VALUE lines fed to the task's env
	Wait          *WaitConfig
	ErrMissingKey bool
}

// ChangeScript is a template's change_script block: a command run inside
// the task (the driver's exec) after a re-render.
type ChangeScript struct {
	Command     string
	Args        []string
	Timeout     time.Duration
	FailOnError bool
}

// WaitConfig is a template's wait block: re-renders are coalesced until
// what the template reads has been quiet for Min, and at most Max after
// the first change. Nil pointers are unset.
type WaitConfig struct {
	Min *time.Duration
	Max *time.Duration
}

// Canonicalize fills a template's defaults.
func (t *Template) Canonicalize() {
	if t.ChangeMode == "" {
		t.ChangeMode = TemplateChangeModeRestart
	}
	if t.Splay == 0 {
		t.Splay = DefaultTemplateSplay
	}
	if t.Perms == "" {
		t.Perms = DefaultTemplatePerms
	}
	if t.LeftDelim == "" {
		t.LeftDelim = DefaultTemplateLeftDelim
	}
	if t.RightDelim == "" {
		t.RightDelim = DefaultTemplateRightDelim
	}
	if t.ChangeSignal != "" {
		t.ChangeSignal = strings.ToUpper(t.ChangeSignal)
	}
	if cs := t.ChangeScript; cs != nil && cs.Timeout == 0 {
		cs.Timeout = DefaultChangeScriptTimeout
	}
}

// Validate checks a canonicalized template; errors name the field.
func (t *Template) Validate() error {
	var errs MultiError
	switch {
	case t.SourcePath == "" && t.EmbeddedTmpl == "":
		errs.Add(fmt.Errorf("must specify a source path (source) or data"))
	case t.SourcePath != "" && t.EmbeddedTmpl != "":
		errs.Add(fmt.Errorf("source and data are mutually exclusive"))
	}
	if len(t.EmbeddedTmpl) > MaxEmbeddedTemplateBytes {
		errs.Add(fmt.Errorf("data is %d bytes, over the limit of %d", len(t.EmbeddedTmpl), MaxEmbeddedTemplateBytes))
	}
	if err := CheckTemplatePath("destination", t.DestPath, true); err != nil {
		errs.Add(err)
	}
	if t.SourcePath != "" {
		if err := CheckTemplatePath("source", t.SourcePath, false); err != nil {
			errs.Add(err)
		}
	}
	switch t.ChangeMode {
	case TemplateChangeModeRestart, TemplateChangeModeNoop:
	case TemplateChangeModeSignal:
		if t.ChangeSignal == "" {
			errs.Add(fmt.Errorf("change_mode %q requires change_signal", t.ChangeMode))
		}
		if t.Envvars {
			errs.Add(fmt.Errorf("change_mode %q is not allowed with env = true (environment changes need a restart)", t.ChangeMode))
		}
	case TemplateChangeModeScript:
		if t.ChangeScript == nil || t.ChangeScript.Command == "" {
			errs.Add(fmt.Errorf("change_mode %q requires a change_script block with a command", t.ChangeMode))
		}
	default:
		errs.Add(fmt.Errorf("change_mode %q must be one of %q, %q, %q or %q", t.ChangeMode,
			TemplateChangeModeRestart, TemplateChangeModeSignal, TemplateChangeModeNoop, TemplateChangeModeScript))
	}
	if t.Splay < 0 {
		errs.Add(fmt.Errorf("splay can't be negative"))
	}
	if _, err := ParseTemplatePerms(t.Perms); err != nil {
		errs.Add(err)
	}
	if (t.Uid != nil && *t.Uid < -1) || (t.Gid != nil && *t.Gid < -1) {
		errs.Add(fmt.Errorf("uid and gid can't be below -1"))
	}
	if cs := t.ChangeScript; cs != nil && cs.Timeout < 0 {
		errs.Add(fmt.Errorf("change_script timeout can't be negative"))
	}
	if w := t.Wait; w != nil {
		if (w.Min != nil && *w.Min < 0) || (w.Max != nil && *w.Max < 0) {
			errs.Add(fmt.Errorf("wait min and max can't be negative"))
		} else if w.Min != nil && w.Max != nil && *w.Max < *w.Min {
			errs.Add(fmt.Errorf("wait min %v is greater than max %v", *w.Min, *w.Max))
		}
	}
	return errs.ErrorOrNil()
}

// ParseTemplatePerms parses a template's perms ("0644", "644", "0o600").
func ParseTemplatePerms(s string) (uint32, error) {
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0o"), 8, 12)
	if err != nil {
		return 0, fmt.Errorf("perms %q is not an octal file mode like \"0644\"", s)
	}
	return uint32(v), nil
}

// CheckTemplatePath checks a template's destination or source as written
// in the job, before interpolation (the client checks again after it,
// resolving symlinks). A relative path is relative to the task dir and may
// not leave it, except into the allocation's shared dir ("../alloc/"); an
// absolute path must start with one of the task's directory variables
// (${NOMAD_TASK_DIR}, ${NOMAD_SECRETS_DIR}, ${NOMAD_ALLOC_DIR}), which the
// client resolves. Paths starting with another interpolation are left to
// the client. required: an empty path is an error.
func CheckTemplatePath(field, p string, required bool) error {
	switch {
	case p == "":
		if required {
			return fmt.Errorf("must specify a %s", field)
		}
		return nil
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("%s %q contains a NUL byte", field, p)
	case strings.HasPrefix(p, "${"):
		return nil
	case path.IsAbs(p):
		return fmt.Errorf("%s %q is an absolute path outside the task directory; %s", field, p, templateDestinationHintInSub)
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		if c == "../alloc" || strings.HasPrefix(c, "../alloc/") {
			return nil
		}
		return fmt.Errorf("%s %q escapes the task directory; %s", field, p, templateDestinationHintInSub)
	}
	return nil
}

// validateTemplates checks the task's templates, naming each by its index
// and destination.
func (t *Task) validateTemplates(place string, errs *MultiError) {
	dests := map[string]int{}
	for i, tmpl := range t.Templates {
		where := fmt.Sprintf("%s: template %d (destination %q)", place, i+1, tmpl.DestPath)
		if err := tmpl.Validate(); err != nil {
			errs.Add(fmt.Errorf("%s: %w", where, err))
		}
		if j, ok := dests[path.Clean(tmpl.DestPath)]; ok && tmpl.DestPath != "" {
			errs.Add(fmt.Errorf("%s: same destination as template %d", where, j+1))
		}
		dests[path.Clean(tmpl.DestPath)] = i
	}
}

// TemplateFuncNames are the functions a template may call (the client's
// function map, client/template, defines each; jobspec checks a
// template's syntax against these names at submission).
var TemplateFuncNames = []string{
	"env", "envOrDefault", "mustEnv", "file",
	"nomadVar", "nomadVarList", "nomadVarExists", "nomadService", "nomadServices",
	"toJSON", "toJSONPretty", "parseJSON", "parseInt", "parseFloat", "parseBool",
	"split", "join", "replaceAll", "regexReplaceAll", "regexMatch",
	"toUpper", "toLower", "toTitle", "trimSpace", "trimPrefix", "trimSuffix",
	"contains", "containsAny", "containsAll", "in",
	"base64Encode", "base64Decode", "base64URLEncode", "base64URLDecode", "sha256Hex", "md5sum",
	"timestamp", "indent", "add", "subtract", "multiply", "divide", "modulo", "minimum", "maximum", "loop",
	"sprig_default", "sprig_empty", "sprig_coalesce", "sprig_ternary", "sprig_list", "sprig_dict",
	"sprig_quote", "sprig_squote", "sprig_upper", "sprig_lower", "sprig_trim", "sprig_replace",
	"sprig_hasPrefix", "sprig_hasSuffix", "sprig_contains", "sprig_join", "sprig_splitList",
	"sprig_toString", "sprig_b64enc", "sprig_b64dec", "sprig_nospace", "sprig_repeat",
}

// TemplateUnavailableFuncNames are consul-template functions that need
// Consul or Vault, which nomadish does not integrate: a template using
// them parses (Nomad's job files keep parsing) and fails on the client
// with an error naming the function.
var TemplateUnavailableFuncNames = []string{
	"key", "keyExists", "keyOrDefault", "ls", "safeLs", "tree", "safeTree", "service", "services",
	"secret", "secrets", "datacenters", "node", "nodes", "connectCARoots", "connectLeaf", "caLeaf", "caRoots", "pkiCert",
}
