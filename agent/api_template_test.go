package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestOfficialClientTemplateBlock registers a job with template blocks
// through github.com/hashicorp/nomad/api, reads every field back, and sees
// a destination escaping the task directory refused with a 400 naming it.
func TestOfficialClientTemplateBlock(t *testing.T) {
	_, c := devAgent(t)
	job := versionsTestJob("300")
	*job.ID, *job.Name = "tmpl", "tmpl"
	lo, hi, splay, timeout := 2*time.Second, 10*time.Second, 3*time.Second, 7*time.Second
	task := job.TaskGroups[0].Tasks[0]
	task.Templates = []*api.Template{{
		EmbeddedTmpl: new(`{{ env "NOMAD_ALLOC_ID" }}`), DestPath: new("local/a.conf"),
		ChangeMode: new("script"), ChangeScript: &api.ChangeScript{Command: new("/bin/true"), Args: []string{"x"}, Timeout: &timeout, FailOnError: new(true)},
		Splay: &splay, Perms: new("0600"), Uid: new(1000), Gid: new(1001), LeftDelim: new("[["), RightDelim: new("]]"),
		Envvars: new(false), Wait: &api.WaitConfig{Min: &lo, Max: &hi}, ErrMissingKey: new(true),
	}, {
		EmbeddedTmpl: new("A=1"), DestPath: new("secrets/a.env"), Envvars: new(true), ChangeMode: new("noop"), ChangeSignal: new("sighup"),
	}}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := c.Jobs().Info("tmpl", nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := got.TaskGroups[0].Tasks[0].Templates
	if len(ts) != 2 {
		t.Fatalf("templates read back: %d", len(ts))
	}
	a, b := ts[0], ts[1]
	if *a.EmbeddedTmpl != `{{ env "NOMAD_ALLOC_ID" }}` || *a.DestPath != "local/a.conf" || *a.ChangeMode != "script" ||
		*a.ChangeScript.Command != "/bin/true" || a.ChangeScript.Args[0] != "x" || *a.ChangeScript.Timeout != timeout ||
		!*a.ChangeScript.FailOnError || *a.Splay != splay || *a.Perms != "0600" || *a.Uid != 1000 || *a.Gid != 1001 ||
		*a.LeftDelim != "[[" || *a.RightDelim != "]]" || *a.Wait.Min != lo || *a.Wait.Max != hi || !*a.ErrMissingKey {
		t.Fatalf("first template read back: %+v", a)
	}
	if !*b.Envvars || *b.ChangeSignal != "SIGHUP" || *b.Splay != 5*time.Second || *b.Perms != "0644" {
		t.Fatalf("second template read back (defaults filled): %+v", b)
	}
	bad := versionsTestJob("300")
	*bad.ID = "tmpl-bad"
	bad.TaskGroups[0].Tasks[0].Templates = []*api.Template{{EmbeddedTmpl: new("x"), DestPath: new("../../etc/x")}}
	_, _, err = c.Jobs().Register(bad, nil)
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), `template 1 (destination "../../etc/x")`) ||
		!strings.Contains(err.Error(), "escapes the task directory") {
		t.Fatalf("escaping destination: %v", err)
	}
	if _, _, err := c.Jobs().Info("tmpl-bad", nil); err == nil {
		t.Fatal("the refused job was stored")
	}
}
