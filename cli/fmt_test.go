package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	fmtCanonical = "job \"a\" {\n  datacenters = [\"dc1\"]\n  type        = \"batch\"\n}\n"
	fmtUgly      = "job \"a\" {\ndatacenters=[\"dc1\"]\n   type = \"batch\"\n}\n"
	fmtBroken    = "job \"a\" {\n  datacenters = [\"dc1\"\n}\n"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFmtRewritesAndLists(t *testing.T) {
	dir := writeFiles(t, map[string]string{"good.nomad.hcl": fmtCanonical, "ugly.nomad": fmtUgly,
		"notes.txt": fmtUgly, "sub/deep.hcl": fmtUgly})
	code, out, errOut := runCLI(nil, "fmt", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != filepath.Join(dir, "ugly.nomad")+"\n" {
		t.Fatalf("listed %q", out)
	}
	if got := readFile(t, filepath.Join(dir, "ugly.nomad")); got != fmtCanonical {
		t.Fatalf("formatted:\n%s", got)
	}
	if st, _ := os.Stat(filepath.Join(dir, "ugly.nomad")); st.Mode().Perm() != 0o640 {
		t.Fatalf("mode changed: %v", st.Mode())
	}
	if readFile(t, filepath.Join(dir, "notes.txt")) != fmtUgly || readFile(t, filepath.Join(dir, "sub/deep.hcl")) != fmtUgly {
		t.Fatal("a non-HCL file or a subdirectory was formatted without -recursive")
	}
	// -recursive reaches the subdirectory; a second run changes nothing.
	if code, out, _ := runCLI(nil, "fmt", "-recursive", dir); code != 0 || out != filepath.Join(dir, "sub/deep.hcl")+"\n" {
		t.Fatalf("recursive: exit %d, %q", code, out)
	}
	if code, out, _ := runCLI(nil, "fmt", "-recursive", dir); code != 0 || out != "" {
		t.Fatalf("second run: exit %d, %q", code, out)
	}
}

func TestFmtCheck(t *testing.T) {
	dir := writeFiles(t, map[string]string{"ugly.nomad.hcl": fmtUgly})
	p := filepath.Join(dir, "ugly.nomad.hcl")
	code, out, _ := runCLI(nil, "fmt", "-check", p)
	if code != 1 || out != p+"\n" {
		t.Fatalf("check: exit %d, %q", code, out)
	}
	if readFile(t, p) != fmtUgly {
		t.Fatal("-check wrote the file")
	}
	if code, _, _ := runCLI(nil, "fmt", "-write=false", "-list=false", p); code != 0 || readFile(t, p) != fmtUgly {
		t.Fatalf("-write=false: exit %d or file written", code)
	}
	if code, _, _ := runCLI(nil, "fmt", p); code != 0 {
		t.Fatalf("fmt: exit %d", code)
	}
	if code, out, _ := runCLI(nil, "fmt", "-check", p); code != 0 || out != "" {
		t.Fatalf("check after fmt: exit %d, %q", code, out)
	}
}

func TestFmtSyntaxErrorWritesNothing(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.nomad.hcl": fmtUgly, "b.nomad.hcl": fmtBroken})
	code, _, errOut := runCLI(nil, "fmt", dir)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(errOut, filepath.Join(dir, "b.nomad.hcl")+":3:1") {
		t.Fatalf("no file:line:col in %q", errOut)
	}
	if readFile(t, filepath.Join(dir, "a.nomad.hcl")) != fmtUgly || readFile(t, filepath.Join(dir, "b.nomad.hcl")) != fmtBroken {
		t.Fatal("a file was written despite the syntax error")
	}
}

func TestFmtMissingPath(t *testing.T) {
	if code, _, errOut := runCLI(nil, "fmt", filepath.Join(t.TempDir(), "nope.hcl")); code != 1 || errOut == "" {
		t.Fatalf("exit %d, %q", code, errOut)
	}
}

func TestFmtStdin(t *testing.T) {
	old := fmtInput
	t.Cleanup(func() { fmtInput = old })
	fmtInput = strings.NewReader(fmtUgly)
	if code, out, _ := runCLI(nil, "fmt", "-"); code != 0 || out != fmtCanonical {
		t.Fatalf("exit %d: %q", code, out)
	}
	fmtInput = strings.NewReader(fmtUgly)
	if code, out, _ := runCLI(nil, "fmt", "-check", "-"); code != 1 || out != "" {
		t.Fatalf("check: exit %d: %q", code, out)
	}
	fmtInput = strings.NewReader(fmtBroken)
	if code, _, errOut := runCLI(nil, "fmt", "-"); code != 1 || !strings.Contains(errOut, "<stdin>:3:1") {
		t.Fatalf("broken: exit %d: %q", code, errOut)
	}
}
