package template

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func testDirs(t *testing.T) Dirs {
	t.Helper()
	root := t.TempDir()
	d := Dirs{TaskDir: filepath.Join(root, "web"), AllocDir: filepath.Join(root, "alloc")}
	for _, p := range []string{filepath.Join(d.TaskDir, "local"), filepath.Join(d.TaskDir, "secrets"), d.AllocDir} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func TestRenderFunctions(t *testing.T) {
	dirs := testDirs(t)
	if err := os.WriteFile(filepath.Join(dirs.TaskDir, "local", "in.txt"), []byte("from file"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := NewData()
	data.Vars["nomad/jobs/web"] = &Var{Path: "nomad/jobs/web", Items: map[string]string{"password": "s3cret", "user": "admin"}}
	data.Vars["nomad/jobs/gone"] = nil
	data.Lists["nomad/jobs"] = []*Var{{Path: "nomad/jobs/a"}, {Path: "nomad/jobs/web"}}
	in := Input{Env: map[string]string{"NOMAD_ALLOC_ID": "a1", "PORT": "8080"}, Dirs: dirs, Data: data}
	for _, tc := range []struct{ src, want string }{
		{`{{ env "NOMAD_ALLOC_ID" }}`, "a1"},
		{`{{ env "NOPE" }}`, ""},
		{`{{ envOrDefault "NOPE" "d" }}`, "d"},
		{`{{ file "local/in.txt" }}`, "from file"},
		{`{{ with nomadVar "nomad/jobs/web" }}{{ .password }}{{ end }}`, "s3cret"},
		{`{{ with nomadVar "nomad/jobs/web@default.global" }}{{ .user }}{{ end }}`, "admin"},
		{`{{ range $k, $v := nomadVar "nomad/jobs/web" }}{{ $k }}={{ $v }};{{ end }}`, "password=s3cret;user=admin;"},
		{`{{ (nomadVar "nomad/jobs/web").Keys }}`, "[password user]"},
		{`{{ nomadVarExists "nomad/jobs/web" }} {{ nomadVarExists "nomad/jobs/gone" }}`, "true false"},
		{`{{ range nomadVarList "nomad/jobs" }}{{ .Path }} {{ end }}`, "nomad/jobs/a nomad/jobs/web "},
		{`{{ toJSON (parseJSON "{\"a\":[1,2]}") }}`, `{"a":[1,2]}`},
		{`{{ "{\"a\":1}" | parseJSON | toJSONPretty }}`, "{\n  \"a\": 1\n}"},
		{`{{ join "," (split ":" "a:b:c") }}`, "a,b,c"},
		{`{{ "a-b-c" | replaceAll "-" "_" }}`, "a_b_c"},
		{`{{ toUpper "abc" }} {{ toLower "ABC" }} {{ toTitle "hello world" }}`, "ABC abc Hello World"},
		{`[{{ trimSpace "  x  " }}]`, "[x]"},
		{`{{ "foobar" | contains "oba" }} {{ split "," "a,b" | contains "b" }} {{ split "," "a,b" | containsAll (split "," "a,c") }}`, "true true false"},
		{`{{ base64Encode "hi" }} {{ base64Decode "aGk=" }}`, "aGk= hi"},
		{`{{ sha256Hex "x" | trimPrefix "2d71" | printf "%.4s" }}`, "1642"},
		{`{{ 3 | add 2 }} {{ 10 | subtract 4 }} {{ 10 | divide 4 }} {{ 2.5 | multiply 2 }}`, "5 6 2 5"},
		{`{{ env "PORT" | parseInt | add 1 }}`, "8081"},
		{`{{ range loop 3 }}{{ . }}{{ end }}`, "012"},
		{`{{ sprig_default "fallback" (env "NOPE") }} {{ sprig_default "fallback" "set" }}`, "fallback set"},
		{`{{ $d := sprig_dict "a" 1 }}{{ $d.a }} {{ sprig_list 1 2 | len }}`, "1 2"},
		{`{{ if regexMatch "^[0-9]+$" "123" }}num{{ end }}`, "num"},
		{`{{ indent 2 "a\nb" }}`, "  a\n  b"},
	} {
		res, err := Render(&structs.Template{DestPath: "local/out"}, tc.src, in)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if string(res.Out) != tc.want {
			t.Errorf("%s = %q, want %q", tc.src, res.Out, tc.want)
		}
	}
}

func TestRenderDelimsAndMissingKey(t *testing.T) {
	in := Input{Env: map[string]string{"A": "1"}, Data: NewData()}
	in.Data.Vars["v"] = &Var{Items: map[string]string{"k": "x"}}
	res, err := Render(&structs.Template{DestPath: "o", LeftDelim: "[[", RightDelim: "]]"}, `{{ keep }} [[ env "A" ]]`, in)
	if err != nil || string(res.Out) != `{{ keep }} 1` {
		t.Fatalf("delims: %q %v", res.Out, err)
	}
	res, err = Render(&structs.Template{DestPath: "o"}, `[{{ with nomadVar "v" }}{{ .missing }}{{ end }}]`, in)
	if err != nil || string(res.Out) != "[]" {
		t.Fatalf("missing key without error_on_missing_key: %q %v", res.Out, err)
	}
	_, err = Render(&structs.Template{DestPath: "o", ErrMissingKey: true}, `{{ with nomadVar "v" }}{{ .missing }}{{ end }}`, in)
	if err == nil || !strings.Contains(err.Error(), `map has no entry for key "missing"`) || !strings.Contains(err.Error(), `rendering template "o"`) {
		t.Fatalf("error_on_missing_key: %v", err)
	}
}

func TestRenderDeps(t *testing.T) {
	data := NewData()
	tmpl := &structs.Template{DestPath: "o"}
	src := `{{ with nomadVar "a" }}{{ .k }}{{ end }}{{ nomadVarExists "b" }}{{ range nomadVarList "p" }}{{ end }}`
	res, err := Render(tmpl, src, Input{Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete() || len(res.Unfetched) != 3 || res.Unfetched[0] != (Dep{DepVar, "a"}) || res.Unfetched[2] != (Dep{DepList, "p"}) {
		t.Fatalf("unfetched = %v", res.Unfetched)
	}
	data.Vars["a"], data.Vars["b"], data.Lists["p"] = nil, nil, nil
	res, _ = Render(tmpl, src, Input{Data: data})
	if len(res.Unfetched) != 0 || len(res.Blocked) != 1 || res.Blocked[0].Path != "a" || len(res.Deps) != 3 {
		t.Fatalf("absent var a should block (b is only tested): %+v", res)
	}
	data.Vars["a"] = &Var{Items: map[string]string{"k": "v"}}
	res, _ = Render(tmpl, src, Input{Data: data})
	if !res.Complete() || string(res.Out) != "vfalse" {
		t.Fatalf("complete render: %+v %q", res, res.Out)
	}
}

func TestRenderErrors(t *testing.T) {
	dirs := testDirs(t)
	if err := os.Symlink("/etc", filepath.Join(dirs.TaskDir, "local", "etc")); err != nil {
		t.Fatal(err)
	}
	in := Input{Dirs: dirs, Data: NewData()}
	for _, tc := range []struct {
		src, want string
		is        error
	}{
		{`{{ file "../../../etc/passwd" }}`, "escapes", ErrEscapes},
		{`{{ file "/etc/passwd" }}`, "escapes", ErrEscapes},
		{`{{ file "local/etc/passwd" }}`, "through a symlink", ErrEscapes},
		{`{{ file "../alloc/x" }}`, "escapes", ErrEscapes},
		{`{{ nomadService "db" }}`, "nomad services are not available", ErrNoServices},
		{`{{ key "x" }}`, "key: Consul and Vault functions are not available", nil},
		{`{{ mustEnv "NOPE" }}`, `environment variable "NOPE" is not set`, nil},
		{`{{ nope }}`, `function "nope" not defined`, nil},
		{`{{ loop 100000000 }}`, "over the limit", nil},
		{`{{ sprig_repeat 100000000 "xxxxxxxx" }}`, "over the limit", nil},
		{`{{ range loop 65536 }}{{ sprig_repeat 1000 "x" }}{{ end }}`, "output over the limit of 16777216 bytes", nil},
	} {
		_, err := Render(&structs.Template{DestPath: "o"}, tc.src, in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("%s: %v, want %q", tc.src, err, tc.want)
		}
	}
	if _, err := Render(&structs.Template{DestPath: "o"}, `{{ nomadVar "x" }}`, Input{}); !errors.Is(err, ErrNoVars) {
		t.Errorf("no reader: %v", err)
	}
}

func TestParseEnvFile(t *testing.T) {
	env, err := ParseEnvFile([]byte("# c\nA=1\n\nexport B = two words\nC=\"q\\tx\"\nD='lit $x'\nE=\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "1", "B": "two words", "C": "q\tx", "D": "lit $x", "E": ""}
	if len(env) != len(want) {
		t.Fatalf("env = %v", env)
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	if _, err := ParseEnvFile([]byte("A=1\nnot a pair\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad line: %v", err)
	}
}

// TestFuncNamesAgree keeps jobspec's submission check (structs'
// name lists) and the client's function map in step.
func TestFuncNamesAgree(t *testing.T) {
	m := (&renderCtx{}).funcs()
	names := map[string]bool{}
	for _, n := range append(append([]string{}, structs.TemplateFuncNames...), structs.TemplateUnavailableFuncNames...) {
		names[n] = true
		if m[n] == nil {
			t.Errorf("structs lists %q; the function map lacks it", n)
		}
	}
	for n := range m {
		if !names[n] {
			t.Errorf("function %q is missing from structs.TemplateFuncNames", n)
		}
	}
}
