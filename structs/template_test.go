package structs

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestTemplateValidate(t *testing.T) {
	dur := func(d time.Duration) *time.Duration { return &d }
	neg := -2
	for _, tc := range []struct {
		t    Template
		want string // "" valid
	}{
		{Template{EmbeddedTmpl: "x", DestPath: "local/a"}, ""},
		{Template{SourcePath: "local/a.tpl", DestPath: "${NOMAD_SECRETS_DIR}/a"}, ""},
		{Template{EmbeddedTmpl: "x", DestPath: "../alloc/a"}, ""},
		{Template{DestPath: "local/a"}, "must specify a source path (source) or data"},
		{Template{EmbeddedTmpl: "x", SourcePath: "local/b", DestPath: "local/a"}, "mutually exclusive"},
		{Template{EmbeddedTmpl: "x"}, "must specify a destination"},
		{Template{EmbeddedTmpl: "x", DestPath: "../../etc/x"}, `destination "../../etc/x" escapes the task directory`},
		{Template{EmbeddedTmpl: "x", DestPath: "/etc/x"}, "absolute path outside the task directory"},
		{Template{SourcePath: "../x", DestPath: "local/a"}, `source "../x" escapes`},
		{Template{EmbeddedTmpl: "x", DestPath: "local/a", ChangeMode: "reload"}, `change_mode "reload" must be one of`},
		{Template{EmbeddedTmpl: "x", DestPath: "local/a", ChangeMode: "signal"}, "requires change_signal"},
		{Template{EmbeddedTmpl: "x", DestPath: "local/a", ChangeMode: "signal", ChangeSignal: "SIGHUP", Envvars: true}, "not allowed with env = true"},
		{Template{EmbeddedTmpl: "x", DestPath: "local/a", ChangeMode: "script"}, "requires a change_script block"},
		{Template{EmbeddedTmpl: "x", DestPath: "local/a", Perms: "999"}, `perms "999" is not an octal`},
		{Template{EmbeddedTmpl: "x", DestPath: "local/a", Uid: &neg}, "uid and gid"},
		{Template{EmbeddedTmpl: "x", DestPath: "local/a", Wait: &WaitConfig{Min: dur(time.Minute), Max: dur(time.Second)}}, "wait min 1m0s is greater than max 1s"},
		{Template{EmbeddedTmpl: strings.Repeat("x", MaxEmbeddedTemplateBytes+1), DestPath: "local/a"}, "over the limit"},
	} {
		tm := tc.t
		tm.Canonicalize()
		err := tm.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.t, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: %v, want %q", tc.t.DestPath, err, tc.want)
		}
	}
}

// TestTemplatesInJob: canonicalized defaults, duplicate destinations and
// the place named in the job's error, and a diff of a changed template.
func TestTemplatesInJob(t *testing.T) {
	uid := 10
	job := &Job{ID: "j", Name: "j", Type: JobTypeService, Priority: 50, Datacenters: []string{"dc1"},
		TaskGroups: []*TaskGroup{{Name: "g", Count: 1, Tasks: []*Task{{Name: "t", Driver: "raw_exec", Templates: []*Template{
			{EmbeddedTmpl: "a", DestPath: "local/a", Uid: &uid, ChangeScript: &ChangeScript{Command: "x"}},
			{EmbeddedTmpl: "b", DestPath: "local/./a"},
		}}}}}}
	job.Canonicalize()
	tm := job.TaskGroups[0].Tasks[0].Templates[0]
	if tm.ChangeMode != "restart" || tm.Splay != 5*time.Second || tm.Perms != "0644" || tm.LeftDelim != "{{" || tm.ChangeScript.Timeout != 5*time.Second {
		t.Fatalf("defaults: %+v", tm)
	}
	err := job.Validate()
	if err == nil || !strings.Contains(err.Error(), `group "g": task "t": template 2 (destination "local/./a"): same destination as template 1`) {
		t.Fatalf("validate: %v", err)
	}
	next := job.Copy()
	next.TaskGroups[0].Tasks[0].Templates[0].EmbeddedTmpl = "changed"
	uid2 := 11
	next.TaskGroups[0].Tasks[0].Templates[0].Uid = &uid2
	lo := time.Second
	next.TaskGroups[0].Tasks[0].Templates[1].Wait = &WaitConfig{Min: &lo}
	d := job.Diff(next)
	if d == nil || d.Type != "Edited" || !strings.Contains(fmtDiff(d), "changed") || !strings.Contains(fmtDiff(d), "1000000000") {
		t.Fatalf("diff %s", fmtDiff(d))
	}
}

func fmtDiff(d *JobDiff) string {
	b, _ := json.Marshal(d)
	return string(b)
}
