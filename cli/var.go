package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// The var commands: Nomad Variables through /v1/var and /v1/vars.

// isTerminal reports whether w is a terminal (Nomad's var commands print a
// table there and JSON otherwise).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// printVar renders v as -out asks: json, table, go-template (with tmpl) or
// none.
func (m *Meta) printVar(v *structs.VariableDecrypted, out, tmpl string) error {
	if out == "" {
		out = "json"
		if isTerminal(m.Out) {
			out = "table"
		}
	}
	switch out {
	case "json":
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(m.Out, string(b))
	case "table":
		kv(m.Out, "Namespace", v.Namespace, "Path", v.Path, "Create Time", formatTime(unixNano(v.CreateTime)),
			"Check Index", strconv.FormatUint(v.ModifyIndex, 10))
		keys := make([]string, 0, len(v.Items))
		for k := range v.Items {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var pairs []string
		for _, k := range keys {
			pairs = append(pairs, k, v.Items[k])
		}
		fmt.Fprintln(m.Out, "\nItems")
		kv(m.Out, pairs...)
	case "go-template":
		if tmpl == "" {
			return errors.New("a template needs to be specified with -template when using -out=go-template")
		}
		t, err := template.New("var").Parse(tmpl)
		if err != nil {
			return fmt.Errorf("parsing -template: %v", err)
		}
		if err := t.Execute(m.Out, v); err != nil {
			return err
		}
		fmt.Fprintln(m.Out)
	case "none":
	default:
		return fmt.Errorf("invalid -out %q: want json, table, go-template or none", out)
	}
	return nil
}

// varGetCommand is `var get [-item K] [-out FMT] [-template T] PATH`.
func varGetCommand(m *Meta, args []string) int {
	f := m.newFlags("var get", "[options] PATH")
	item := f.String("item", "", "print only this item's value")
	out := f.String("out", "", "output format: json, table, go-template or none")
	tmpl := f.String("template", "", "template for -out=go-template")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the variable path")
	}
	v, err := m.client(f).varRead(pos[0])
	if err != nil {
		return m.errorf("retrieving variable: %v", err)
	}
	if *item != "" {
		val, ok := v.Items[*item]
		if !ok {
			return m.errorf("retrieving variable: item %q not found in %q", *item, v.Path)
		}
		fmt.Fprintln(m.Out, val)
		return exitOK
	}
	if err := m.printVar(v, *out, *tmpl); err != nil {
		return m.errorf("rendering variable: %v", err)
	}
	return exitOK
}

// varPutCommand is `var put [-cas N|-check-index N] [-force] [-out FMT]
// PATH|@FILE|- [k=v ...]`: write a variable. Items come from k=v arguments
// (k=@file reads a value from a file, k=- from stdin), a spec file
// (@file.json, @file.hcl, or a file argument) or stdin ("-"); k=v
// arguments override the spec's items. Without -force a spec's
// ModifyIndex, or -cas, makes the write a check-and-set.
func varPutCommand(m *Meta, args []string) int {
	f := m.newFlags("var put", "[options] PATH|@FILE|- [key=value ...]")
	cas := f.Int64("cas", -1, "check-and-set: write only if the variable's modify index is N (0: only if absent)")
	f.Int64Var(cas, "check-index", -1, "same as -cas (Nomad's name)")
	force := f.Bool("force", false, "write whatever the server holds (no check-and-set)")
	out := f.String("out", "none", "print the written variable: json, table, go-template or none")
	tmpl := f.String("template", "", "template for -out=go-template")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		return m.wrongArgs(f, "a variable path or spec file, then key=value items")
	}
	v, err := m.varFromArgs(pos)
	if err != nil {
		return m.errorf("parsing variable: %v", err)
	}
	if ns := m.apiOption(f, "namespace"); ns != "" {
		v.Namespace = ns
	}
	var q url.Values
	switch {
	case *force:
	case *cas >= 0:
		v.ModifyIndex = uint64(*cas)
		q = url.Values{"cas": {strconv.FormatUint(v.ModifyIndex, 10)}}
	case v.ModifyIndex > 0:
		q = url.Values{"cas": {strconv.FormatUint(v.ModifyIndex, 10)}}
	}
	written, err := m.client(f).varPut(v, q)
	if err != nil {
		var ce *casConflict
		if errors.As(err, &ce) {
			return m.errorf("creating variable: Check-and-Set conflict\n\n    Your provided check-index (%d) does not match the\n    server-side index (%d).\n\n    If you are sure you want to perform this operation, add the -force flag.", ce.check, ce.cur.ModifyIndex)
		}
		return m.errorf("creating variable: %v", err)
	}
	if *out == "none" {
		fmt.Fprintf(m.Out, "Created variable %q with modify index %d\n", written.Path, written.ModifyIndex)
		return exitOK
	}
	if err := m.printVar(written, *out, *tmpl); err != nil {
		return m.errorf("rendering variable: %v", err)
	}
	return exitOK
}

// varFromArgs builds the variable of `var put`'s arguments.
func (m *Meta) varFromArgs(pos []string) (*structs.VariableDecrypted, error) {
	v := &structs.VariableDecrypted{}
	first, rest := pos[0], pos[1:]
	var specName string
	switch {
	case first == "-":
		specName = "<stdin>"
	case strings.HasPrefix(first, "@"):
		specName = first[1:]
	case isSpecFile(first):
		specName = first
	default:
		v.Path = first
	}
	if specName != "" {
		src, err := m.readSpec(map[bool]string{true: "-", false: specName}[specName == "<stdin>"])
		if err != nil {
			return nil, fmt.Errorf("reading %s: %v", specName, err)
		}
		spec, err := parseVarSpec(specName, src)
		if err != nil {
			return nil, err
		}
		// A path may follow a spec file: it wins.
		if len(rest) > 0 && !strings.Contains(rest[0], "=") {
			spec.Path, rest = rest[0], rest[1:]
		}
		v = spec
	}
	for _, a := range rest {
		k, val, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("item %q: want key=value", a)
		}
		if strings.HasPrefix(val, "@") {
			b, err := os.ReadFile(val[1:])
			if err != nil {
				return nil, fmt.Errorf("item %q: %v", k, err)
			}
			val = string(b)
		} else if val == "-" {
			b, err := io.ReadAll(os.Stdin)
			if err != nil {
				return nil, fmt.Errorf("item %q: %v", k, err)
			}
			val = string(b)
		}
		if v.Items == nil {
			v.Items = structs.VariableItems{}
		}
		v.Items[k] = val
	}
	v.Path = strings.Trim(v.Path, "/ ")
	if v.Path == "" {
		return nil, errors.New("no variable path: give one as the first argument or in the spec")
	}
	return v, nil
}

// varListCommand is `var list [-out json|table] [PREFIX]`.
func varListCommand(m *Meta, args []string) int {
	f := m.newFlags("var list", "[options] [PREFIX]")
	out := f.String("out", "table", "output format: table or json")
	ff := addFormatFlags(f)
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return m.wrongArgs(f, "at most one argument: a path prefix")
	}
	prefix := ""
	if len(pos) == 1 {
		prefix = pos[0]
	}
	list, err := m.client(f).varList(prefix)
	if err != nil {
		return m.errorf("retrieving list of variables: %v", err)
	}
	if code, done := ff.print(m, list); done {
		return code
	}
	switch *out {
	case "json":
		b, _ := json.MarshalIndent(list, "", "  ")
		fmt.Fprintln(m.Out, string(b))
	case "table":
		if len(list) == 0 {
			fmt.Fprintln(m.Out, "No matching variables found")
			return exitOK
		}
		rows := [][]string{{"Namespace", "Path", "Last Updated"}}
		for _, v := range list {
			rows = append(rows, []string{v.Namespace, v.Path, unixNano(v.ModifyTime).Format(time.RFC3339)})
		}
		table(m.Out, rows)
	default:
		return m.errorf("listing variables: invalid -out %q: want table or json", *out)
	}
	return exitOK
}

// varPurgeCommand is `var purge [-cas N|-check-index N] PATH`.
func varPurgeCommand(m *Meta, args []string) int {
	f := m.newFlags("var purge", "[options] PATH")
	cas := f.Int64("cas", -1, "check-and-set: delete only if the variable's modify index is N")
	f.Int64Var(cas, "check-index", -1, "same as -cas (Nomad's name)")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return m.wrongArgs(f, "one argument: the variable path")
	}
	if err := m.client(f).varDelete(pos[0], *cas); err != nil {
		var ce *casConflict
		if errors.As(err, &ce) {
			return m.errorf("purging variable: Check-and-Set conflict\n\n    Your provided check-index (%d) does not match the\n    server-side index (%d).", ce.check, ce.cur.ModifyIndex)
		}
		return m.errorf("purging variable: %v", err)
	}
	fmt.Fprintf(m.Out, "Successfully purged variable %q!\n", pos[0])
	return exitOK
}

// varInitCommand is `var init [-out hcl|json] [-quiet] [FILE]`: write an
// example spec (spec.nv.hcl or spec.nv.json); an existing file is kept.
func varInitCommand(m *Meta, args []string) int {
	f := m.newLocalFlags("var init", "[options] [FILE]")
	out := f.String("out", "hcl", "format of the example: hcl or json")
	quiet := f.Bool("quiet", false, "print the example instead of writing a file")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return m.wrongArgs(f, "at most one argument: the file to write")
	}
	content, file := varSpecTemplate, "spec.nv.hcl"
	switch *out {
	case "hcl":
	case "json":
		content, file = varSpecTemplateJSON, "spec.nv.json"
	default:
		return m.errorf("initializing variable spec: invalid -out %q: want hcl or json", *out)
	}
	if *quiet {
		fmt.Fprint(m.Out, content)
		return exitOK
	}
	if len(pos) == 1 {
		file = pos[0]
	}
	if _, err := os.Stat(file); err == nil {
		return m.errorf("initializing variable spec: file %q already exists", file)
	}
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		return m.errorf("writing %s: %v", file, err)
	}
	fmt.Fprintf(m.Out, "Example variable specification written to %s\n", file)
	return exitOK
}
