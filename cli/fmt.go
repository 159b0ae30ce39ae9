package cli

// Nomad's `fmt`: rewrite HCL files (job specs, agent configs, ...) in the
// canonical format of hclwrite.Format (website/cli-fmt.md).

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// fmtInput is what `fmt -` formats (tests replace it).
var fmtInput io.Reader = os.Stdin

// fmtFile is one file to format: its source and canonical form.
type fmtFile struct {
	path     string
	src, out []byte
}

func (f fmtFile) changed() bool { return !bytes.Equal(f.src, f.out) }

// fmtCommand is `fmt [-check] [-write=true] [-list=true] [-recursive]
// [PATH...|-]`. Every file is parsed first: if one has a syntax error,
// the errors are printed and nothing is written (exit 1). -check writes
// nothing and exits 1 when a file is not canonical.
func fmtCommand(m *Meta, args []string) int {
	f := m.newLocalFlags("fmt", "[options] [PATH ...|-]")
	check := f.Bool("check", false, "write nothing; exit 1 when a file is not canonically formatted")
	write := f.Bool("write", true, "write the formatted files in place")
	list := f.Bool("list", true, "list the files whose formatting changed")
	recursive := f.Bool("recursive", false, "also format the files of subdirectories")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if *check {
		*write = false
	}
	if len(pos) == 1 && pos[0] == "-" {
		return m.fmtStdin(*check)
	}
	if len(pos) == 0 {
		pos = []string{"."}
	}
	var paths []string
	for _, p := range pos {
		found, err := fmtPaths(p, *recursive)
		if err != nil {
			return m.errorf("fmt: %v", err)
		}
		paths = append(paths, found...)
	}
	var files []fmtFile
	bad := false
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return m.errorf("fmt: reading %s: %v", p, err)
		}
		if diags := hclSyntaxErrors(p, src); diags != "" {
			fmt.Fprint(m.Err, diags)
			bad = true
			continue
		}
		files = append(files, fmtFile{path: p, src: src, out: hclwrite.Format(src)})
	}
	if bad {
		fmt.Fprintln(m.Err, "Error: fmt: syntax errors; no file was written")
		return exitError
	}
	changed := false
	for _, file := range files {
		if !file.changed() {
			continue
		}
		changed = true
		if *list {
			fmt.Fprintln(m.Out, file.path)
		}
		if *write {
			if err := writeKeepingMode(file.path, file.out); err != nil {
				return m.errorf("fmt: writing %s: %v", file.path, err)
			}
		}
	}
	if *check && changed {
		return exitError
	}
	return exitOK
}

// fmtStdin formats standard input to standard output (-check: only the
// exit code says whether it was canonical).
func (m *Meta) fmtStdin(check bool) int {
	src, err := io.ReadAll(fmtInput)
	if err != nil {
		return m.errorf("fmt: reading stdin: %v", err)
	}
	if diags := hclSyntaxErrors("<stdin>", src); diags != "" {
		fmt.Fprint(m.Err, diags)
		return exitError
	}
	out := hclwrite.Format(src)
	if check {
		if !bytes.Equal(src, out) {
			return exitError
		}
		return exitOK
	}
	_, _ = m.Out.Write(out)
	return exitOK
}

// hclSyntaxErrors parses src and returns its errors, one
// "Error: path:line:col: summary; detail" line each ("" when none).
func hclSyntaxErrors(path string, src []byte) string {
	_, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	var b strings.Builder
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		pos := path
		if d.Subject != nil {
			pos = fmt.Sprintf("%s:%d:%d", path, d.Subject.Start.Line, d.Subject.Start.Column)
		}
		fmt.Fprintf(&b, "Error: %s: %s", pos, d.Summary)
		if d.Detail != "" {
			fmt.Fprintf(&b, "; %s", d.Detail)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// isHCLFile reports whether a directory entry is formatted: Nomad formats
// .nomad and .hcl files.
func isHCLFile(name string) bool {
	return strings.HasSuffix(name, ".nomad") || strings.HasSuffix(name, ".hcl")
}

// fmtPaths lists the files to format under p: p itself when it is a file
// (whatever its name), else its .nomad and .hcl files, subdirectories'
// too with recursive. Sorted.
func fmtPaths(p string, recursive bool) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	var out []string
	err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != p && (!recursive || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && isHCLFile(d.Name()) {
			out = append(out, path)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// writeKeepingMode replaces path's content, keeping its permissions.
func writeKeepingMode(path string, data []byte) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, st.Mode().Perm())
}
