package template_test

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/template"
	"github.com/nomadish/nomadish/client/template/templatetest"
	"github.com/nomadish/nomadish/structs"
)

func inst(id, addr string, port int, tags ...string) *template.Service {
	return &template.Service{ID: id, Name: "web", Address: addr, Port: port, Tags: tags, Namespace: "default"}
}

// servicesFixture is a Manager over a fake service reader only (no
// variables).
func servicesFixture(t *testing.T, src string) (*fixture, *templatetest.Services, *template.Manager) {
	t.Helper()
	root := t.TempDir()
	fx := &fixture{dirs: template.Dirs{TaskDir: filepath.Join(root, "web"), AllocDir: filepath.Join(root, "alloc")}, task: &fakeTask{}}
	mkdirs(t, fx.dirs)
	tm := &structs.Template{DestPath: "local/up.conf", EmbeddedTmpl: src, ChangeMode: "noop"}
	tm.Canonicalize()
	svcs := templatetest.NewServices()
	m := template.New(template.Config{Templates: []*structs.Template{tm}, Dirs: fx.dirs, Services: svcs, Task: fx.task,
		Splay: func(time.Duration) time.Duration { return 0 }})
	return fx, svcs, m
}

// TestNomadServiceForms: by name, "tag.name", "name@region", n "key"
// "name" (stable, n at most the instances), nomadServices; bad calls name
// the problem.
func TestNomadServiceForms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := `{{ range nomadService "web" }}{{ .Address }}:{{ .Port }} {{ end }}|` +
			`{{ range nomadService "blue.web@global" }}{{ .ID }} {{ end }}|` +
			`{{ range nomadService 2 "alloc-1" "web" }}{{ .ID }} {{ end }}|` +
			`{{ len (nomadService 9 "k" "web") }}|` +
			`{{ range nomadServices }}{{ .Name }}={{ join "," .Tags }} {{ end }}`
		fx, svcs, m := servicesFixture(t, src)
		svcs.Set("web", inst("c", "10.0.0.3", 82, "green"), inst("a", "10.0.0.1", 80, "blue"), inst("b", "10.0.0.2", 81, "blue", "x"))
		svcs.Set("db", inst("d", "10.0.0.9", 5432))
		if err := m.Prestart(t.Context()); err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(fx.read(t, "local/up.conf"), "|")
		if parts[0] != "10.0.0.1:80 10.0.0.2:81 10.0.0.3:82 " || parts[1] != "a b " || parts[3] != "3" || parts[4] != "db= web=blue,green,x " {
			t.Fatalf("rendered %q", parts)
		}
		chosen := strings.Fields(parts[2])
		if len(chosen) != 2 || chosen[0] == chosen[1] {
			t.Fatalf("choose 2: %q", parts[2])
		}
		m.Stop()
	})
	for _, bad := range []struct{ src, want string }{
		{`{{ nomadService "a" "b" }}`, "got 2 arguments"},
		{`{{ nomadService 0 "k" "web" }}`, "at least 1"},
		{`{{ nomadService "we b" }}`, "invalid service query"},
		{`{{ nomadServices "x" }}`, "takes no arguments"},
	} {
		_, err := template.Render(&structs.Template{DestPath: "o"}, bad.src, template.Input{Data: template.NewData(), Services: true})
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.src, err, bad.want)
		}
	}
}

// TestNomadServiceChangeRerenders: a new, moved or removed instance
// re-renders the file (the watcher blocks on the reader's index).
func TestNomadServiceChangeRerenders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx, svcs, m := servicesFixture(t, `{{ range nomadService "web" }}{{ .Address }}:{{ .Port }};{{ end }}`)
		svcs.Set("web", inst("a", "10.0.0.1", 80))
		if err := m.Prestart(t.Context()); err != nil {
			t.Fatal(err)
		}
		m.Watch()
		synctest.Wait()
		for i, step := range []struct {
			set  []*template.Service
			want string
		}{
			{[]*template.Service{inst("a", "10.0.0.1", 80), inst("b", "10.0.0.2", 81)}, "10.0.0.1:80;10.0.0.2:81;"},
			{[]*template.Service{inst("b", "10.0.0.2", 9090)}, "10.0.0.2:9090;"},
			{nil, ""},
		} {
			svcs.Set("web", step.set...)
			synctest.Wait()
			if got := fx.read(t, "local/up.conf"); got != step.want {
				t.Fatalf("step %d: rendered %q, want %q", i, got, step.want)
			}
		}
		m.Stop()
	})
}
