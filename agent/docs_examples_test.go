package agent_test

// TestDocsExamples checks every ```hcl block of website/*.md with the parser
// that would read it: job files with jobspec and the built-in drivers'
// config schemas (then jobcheck.Check, as `nomadish job validate` does), agent configurations with agent/config
// (LoadFile, merged over the defaults, then Validate, as `nomadish agent
// -config` does). The rules (how a block is classified, how fragments are
// wrapped, the <!-- example: ... --> markers) are written down at the top of
// website/index.md; keep the two in step.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/drivers/catalog"
	"github.com/nomadish/nomadish/jobcheck"
	"github.com/nomadish/nomadish/jobspec"
)

// docBlock is one ```hcl block of a website page.
type docBlock struct {
	doc    string // "website/jobspec.md"
	line   int    // line of the opening fence
	text   string // the lines between the fences
	expect string // "" (must pass), "error" (must fail), "skip" or "acl-policy" (an ACL policy that must pass)
	reason string // why, for "skip"
}

func (b docBlock) String() string { return fmt.Sprintf("%s:%d", b.doc, b.line) }

var exampleMarker = regexp.MustCompile(`^<!--\s*example:\s*(error|skip|acl-policy)\s*(?:\((.+)\))?\s*-->$`)

// websiteDir is ../website from this file, whatever the working directory.
func websiteDir(t *testing.T) string {
	t.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("runtime.Caller: no file")
	}
	return filepath.Join(filepath.Dir(self), "..", "website")
}

// docBlocks returns the ```hcl blocks of every website/*.md, in file and
// line order. A marker that is malformed or not directly above an ```hcl
// fence, and a fence left open, fail the test.
func docBlocks(t *testing.T) []docBlock {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(websiteDir(t), "*.md"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no website/*.md found (%v)", err)
	}
	sort.Strings(paths)
	var out []docBlock
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, splitBlocks(t, "website/"+filepath.Base(p), string(src))...)
	}
	return out
}

func splitBlocks(t *testing.T, doc, src string) []docBlock {
	t.Helper()
	var (
		out     []docBlock
		cur     *docBlock // the open ```hcl block
		inOther bool      // inside a fence of another language
		marker  []string  // the previous line's marker match
		lineNo  int
	)
	sc := bufio.NewScanner(strings.NewReader(src))
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		fence := strings.HasPrefix(trimmed, "```")
		switch {
		case cur != nil && fence:
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		case inOther:
			inOther = !fence
		case fence && strings.TrimSpace(strings.TrimPrefix(trimmed, "```")) == "hcl":
			cur = &docBlock{doc: doc, line: lineNo}
			if marker != nil {
				cur.expect, cur.reason = marker[1], marker[2]
			}
		case fence:
			inOther = true
		}
		if marker != nil && cur == nil {
			t.Errorf("%s:%d: an example marker must be directly above a ```hcl fence", doc, lineNo-1)
		}
		marker = nil
		if strings.HasPrefix(trimmed, "<!-- example") {
			marker = exampleMarker.FindStringSubmatch(trimmed)
			if marker == nil {
				t.Errorf("%s:%d: malformed marker %q; want <!-- example: error -->, <!-- example: acl-policy --> or <!-- example: skip (reason) -->", doc, lineNo, trimmed)
			} else if marker[1] == "skip" && strings.TrimSpace(marker[2]) == "" {
				t.Errorf("%s:%d: a skip marker needs a reason: <!-- example: skip (why) -->", doc, lineNo)
			}
		}
	}
	if cur != nil {
		t.Errorf("%s: the ```hcl block opened here is never closed", cur)
	}
	return out
}

func TestDocsExamples(t *testing.T) {
	blocks := docBlocks(t)
	if len(blocks) == 0 {
		t.Fatal("no ```hcl blocks in website/*.md")
	}
	counts := map[string]int{}
	for _, b := range blocks {
		t.Run(fmt.Sprintf("%s:%d", strings.TrimPrefix(b.doc, "website/"), b.line), func(t *testing.T) {
			kind, err := checkBlock(t, b)
			if b.expect != "skip" && elide(b.text) != b.text {
				kind += " (elided: parse only)"
			}
			switch {
			case b.expect == "skip":
				counts[kind+" skipped"]++
			case b.expect == "error" && err == nil:
				t.Errorf("%s: %s marked <!-- example: error --> but it is accepted", b, kind)
			case b.expect == "error":
				counts[kind+" error"]++
				t.Logf("%s: %s fails as marked:\n%v", b, kind, err)
			case err != nil:
				t.Errorf("%s: %s example:\n%v", b, kind, err)
			default:
				counts[kind+" ok"]++
			}
		})
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%-40s %d", k, counts[k])
	}
}

// checkBlock classifies b and, unless b is marked skip, checks it. kind is
// "job", "job fragment", "agent config" or, for a block marked acl-policy,
// "acl policy" (checked with acl.Parse, as `acl policy apply` does).
func checkBlock(t *testing.T, b docBlock) (kind string, err error) {
	t.Helper()
	text := elide(b.text)
	if b.expect == "acl-policy" {
		if _, err := acl.Parse(b.String(), text); err != nil {
			return "acl policy", fmt.Errorf("(lines relative to the block)\n%w", err)
		}
		return "acl policy", nil
	}
	body, names, err := topLevel(b, text)
	if err != nil {
		return "unparsable", err
	}
	switch {
	case names["job"]:
		kind = "job"
	case isJobFragment(names):
		kind = "job fragment"
	default:
		kind = "agent config"
	}
	if b.expect == "skip" {
		return kind, nil
	}
	switch kind {
	case "agent config":
		return kind, checkAgentConfig(t, b, text, names)
	case "job":
		return kind, checkJob(b, text, identityLines(b, text), text != b.text)
	}
	wrapped, lines := wrapFragment(text, body, names, b.line+1)
	return kind, checkJob(b, wrapped, lines, text != b.text)
}

// elision is a line holding only "...", or "{ ... }": the rest of a block
// left out on purpose.
var (
	elisionLine  = regexp.MustCompile(`(?m)^[ \t]*\.\.\.[ \t]*$`)
	elisionBlock = regexp.MustCompile(`\{[ \t]*\.\.\.[ \t]*\}`)
)

// elide removes elisions, keeping every line where it was.
func elide(text string) string {
	return elisionBlock.ReplaceAllString(elisionLine.ReplaceAllString(text, ""), "{}")
}

// topLevel parses text as HCL, positions in b's page, and returns the set of
// its top-level argument and block names.
func topLevel(b docBlock, text string) (*hclsyntax.Body, map[string]bool, error) {
	f, diags := hclsyntax.ParseConfig([]byte(text), b.doc, hcl.Pos{Line: b.line + 1, Column: 1})
	if diags.HasErrors() {
		return nil, nil, diags
	}
	body := f.Body.(*hclsyntax.Body)
	names := map[string]bool{}
	for n := range body.Attributes {
		names[n] = true
	}
	for _, blk := range body.Blocks {
		names[blk.Type] = true
	}
	return body, names, nil
}

// The names each level of a job file accepts (jobspec/job.go), plus the
// top-level declarations. A block whose top-level names all appear here is a
// job fragment; any other block (without a job) is an agent configuration.
var (
	jobDecls   = set("variable", "variables", "locals")
	jobNames   = set("name", "type", "datacenters", "priority", "region", "namespace", "node_pool", "all_at_once", "meta", "affinity", "spread", "group", "constraint", "reschedule", "migrate", "update")
	groupNames = set("count", "meta", "max_client_disconnect", "disconnect", "affinity", "spread", "restart", "reschedule", "migrate", "update", "task", "constraint", "ephemeral_disk", "network", "service")
	taskNames  = set("driver", "user", "kill_timeout", "kill_signal", "leader", "env", "meta", "config", "constraint", "affinity", "resources", "logs", "restart", "service", "template", "artifact")
)

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// within reports whether every name that is not a declaration is in level.
func within(names, level map[string]bool) bool {
	for n := range names {
		if !jobDecls[n] && !level[n] {
			return false
		}
	}
	return true
}

func isJobFragment(names map[string]bool) bool {
	return within(names, jobNames) || within(names, groupNames) || within(names, taskNames)
}

// wrapFragment puts a job fragment into the innermost level that accepts all
// its names: a task "docs" (driver raw_exec and a config, unless the fragment
// sets them), in a group "docs", in a job "docs". Declarations (variable, variables,
// locals) stay at the top level. It returns the job file and, per line, the
// page line it came from (0 for the wrapper's own lines).
func wrapFragment(text string, body *hclsyntax.Body, names map[string]bool, first int) (string, []int) {
	fragLines := strings.SplitAfter(text, "\n")
	decl := make([]bool, len(fragLines)) // lines of top-level declarations
	for _, blk := range body.Blocks {
		if jobDecls[blk.Type] {
			r := blk.Range()
			for l := r.Start.Line; l <= r.End.Line; l++ {
				decl[l-first] = true
			}
		}
	}
	var w wrapper
	for i, l := range fragLines {
		if decl[i] {
			w.add(l, first+i)
		}
	}
	task := `task "docs" {` + "\n"
	if !names["driver"] {
		task += `driver = "raw_exec"` + "\n"
	}
	if !names["config"] {
		task += `config { command = "/bin/true" }` + "\n"
	}
	var open, close string
	switch {
	case len(names) == countDecls(names):
		close = `job "docs" {` + "\n" + `group "docs" {` + "\n" + task + "}\n}\n}\n"
	case within(names, taskNames):
		open, close = `job "docs" {`+"\n"+`group "docs" {`+"\n"+task, "}\n}\n}\n"
	case within(names, groupNames):
		open, close = `job "docs" {`+"\n"+`group "docs" {`+"\n", "}\n}\n"
		if !names["task"] {
			close = task + "}\n" + close
		}
	default:
		open, close = `job "docs" {`+"\n", "}\n"
		if !names["group"] {
			close = `group "docs" {` + "\n" + task + "}\n}\n" + close
		}
	}
	w.add(open, 0)
	for i, l := range fragLines {
		if !decl[i] {
			w.add(l, first+i)
		}
	}
	w.add("\n"+close, 0)
	return w.String(), w.lines
}

func countDecls(names map[string]bool) int {
	n := 0
	for k := range names {
		if jobDecls[k] {
			n++
		}
	}
	return n
}

// wrapper builds a file from pieces, remembering each line's page line.
type wrapper struct {
	strings.Builder
	lines []int
}

// add appends s, whose first line is page line from (0: not from the page).
func (w *wrapper) add(s string, from int) {
	for i, l := range strings.SplitAfter(s, "\n") {
		if l == "" {
			continue
		}
		w.WriteString(l)
		if from == 0 {
			w.lines = append(w.lines, 0)
		} else {
			w.lines = append(w.lines, from+i)
		}
	}
}

func identityLines(b docBlock, text string) []int {
	lines := make([]int, strings.Count(text, "\n")+1)
	for i := range lines {
		lines[i] = b.line + 1 + i
	}
	return lines
}

// checkJob parses src as the job file of b, checking the drivers' config
// as `job validate` does, and, unless it has elisions, canonicalizes and
// validates the job (jobcheck.Check). Parse errors name the page and line.
func checkJob(b docBlock, src string, lines []int, elided bool) error {
	job, _, err := jobspec.ParseWithWarnings(&jobspec.ParseConfig{Path: b.doc, Body: []byte(src), Drivers: catalog.Builtin})
	var perr *jobspec.Error
	if errors.As(err, &perr) {
		for _, d := range perr.Diags {
			if d.Subject != nil {
				d.Subject.Start.Line = pageLine(lines, d.Subject.Start.Line)
			}
		}
		return err
	}
	if err != nil || elided {
		return err
	}
	if err := jobcheck.Check(job, catalog.Builtin); err != nil {
		return fmt.Errorf("job validate: %w", err)
	}
	return nil
}

// pageLine maps a line of a wrapped file to its page line; a line of the
// wrapper maps to the next page line after it (or the last one).
func pageLine(lines []int, l int) int {
	if l < 1 || l > len(lines) {
		return l
	}
	for i := l - 1; i < len(lines); i++ {
		if lines[i] != 0 {
			return lines[i]
		}
	}
	for i := l - 1; i >= 0; i-- {
		if lines[i] != 0 {
			return lines[i]
		}
	}
	return l
}

// excerptBase is what an agent config excerpt (a block that sets no
// data_dir) is merged over, after the defaults.
const excerptBase = `data_dir = "/var/lib/nomadish"
server {
  enabled = true
}
`

// checkAgentConfig loads text as an agent config file named after b's page
// (padded so that its line numbers are the page's), merges it over the
// defaults (and excerptBase, for an excerpt) and validates the result on a
// 16-core machine (a sysfs tree of its own) unless the block sets sysfs_root.
func checkAgentConfig(t *testing.T, b docBlock, text string, names map[string]bool) error {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.hcl", filepath.Base(b.doc), b.line))
	if err := os.WriteFile(path, []byte(strings.Repeat("\n", b.line)+text), 0o600); err != nil {
		t.Fatal(err)
	}
	fix := func(err error) error {
		return errors.New(strings.ReplaceAll(err.Error(), path, b.doc))
	}
	fc, err := config.LoadFile(path)
	if err != nil {
		return fix(err)
	}
	cfg := config.DefaultConfig()
	if !names["data_dir"] {
		basePath := filepath.Join(dir, "excerpt-base.hcl")
		if err := os.WriteFile(basePath, []byte(excerptBase), 0o600); err != nil {
			t.Fatal(err)
		}
		base, err := config.LoadFile(basePath)
		if err != nil {
			t.Fatalf("excerptBase: %v", err)
		}
		cfg = cfg.Merge(base)
	}
	cfg = cfg.Merge(fc)
	if fc.Client.SysfsRoot == "" { // the block does not set sysfs_root
		// Cores are checked against the machine's; make it the 16-core
		// machine the pages assume, whatever runs the test.
		cfg.Client.SysfsRoot = filepath.Join(dir, "sysfs")
		cpuDir := filepath.Join(cfg.Client.SysfsRoot, "devices", "system", "cpu")
		if err := os.MkdirAll(cpuDir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cpuDir, "present"), []byte("0-15\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return fix(err)
	}
	return nil
}
