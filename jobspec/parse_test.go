package jobspec

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func TestParseNomadExamples(t *testing.T) {
	for _, tc := range []struct {
		file         string
		wantWarnings []string
	}{
		{"testdata/example-short.nomad.hcl", nil},
		{"testdata/example.nomad.hcl", nil}, // its service is provider = "nomad"
	} {
		t.Run(tc.file, func(t *testing.T) {
			job, warnings, err := ParseWithWarnings(&ParseConfig{Path: tc.file})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if len(warnings) != len(tc.wantWarnings) {
				t.Fatalf("warnings = %q, want %d", warnings, len(tc.wantWarnings))
			}
			for i, w := range tc.wantWarnings {
				if !strings.HasPrefix(warnings[i], w) {
					t.Errorf("warning %d = %q, want prefix %q", i, warnings[i], w)
				}
			}
			if job.ID != "example" || len(job.TaskGroups) != 1 {
				t.Fatalf("job = %+v", job)
			}
			tg := job.TaskGroups[0]
			task := tg.LookupTask("redis")
			if tg.Name != "cache" || task == nil || task.Driver != "docker" {
				t.Fatalf("group = %+v", tg)
			}
			wantCfg := map[string]any{"image": "redis:7", "ports": []any{"db"}, "auth_soft_fail": true}
			if !reflect.DeepEqual(task.Config, wantCfg) {
				t.Errorf("config = %#v, want %#v", task.Config, wantCfg)
			}
			if *task.Resources != (structs.Resources{CPU: 500, MemoryMB: 256}) {
				t.Errorf("resources = %+v", task.Resources)
			}
			wantNet := []*structs.NetworkResource{{Mode: "host", DynamicPorts: []structs.Port{{Label: "db", To: 6379}}}}
			if !reflect.DeepEqual(tg.Networks, wantNet) {
				t.Errorf("networks = %+v, want %+v", tg.Networks, wantNet)
			}
			job.Canonicalize()
			if err := job.Validate(); err != nil {
				t.Errorf("validate: %v", err)
			}
		})
	}
}

func TestParseExampleRestartAndNoCanonicalize(t *testing.T) {
	job, err := ParseFile("testdata/example.nomad.hcl", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := structs.RestartPolicy{Attempts: 2, Interval: 30 * time.Minute, Delay: 15 * time.Second, Mode: "fail"}
	if got := job.TaskGroups[0].RestartPolicy; got == nil || *got != want {
		t.Errorf("restart = %+v, want %+v", got, want)
	}
	if job.Type != "service" || !reflect.DeepEqual(job.Datacenters, []string{"*"}) {
		t.Errorf("type/datacenters = %q %q", job.Type, job.Datacenters)
	}
	// Parse does not canonicalize: unset fields stay zero.
	if job.Region != "" || job.Priority != 0 || job.TaskGroups[0].Tasks[0].KillTimeout != 0 {
		t.Errorf("parse filled defaults: region %q priority %d", job.Region, job.Priority)
	}
	short, err := ParseFile("testdata/example-short.nomad.hcl", nil)
	if err != nil {
		t.Fatal(err)
	}
	if short.TaskGroups[0].Count != 0 || short.TaskGroups[0].RestartPolicy != nil {
		t.Errorf("short example got defaults: %+v", short.TaskGroups[0])
	}
}

func TestParseFull(t *testing.T) {
	job, warnings, err := ParseWithWarnings(&ParseConfig{Path: "testdata/full.nomad.hcl", ArgVars: []string{"tier=web"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %q", warnings)
	}
	want := &structs.Job{
		ID: "full", Name: "full", Type: "batch", Datacenters: []string{"dc1", "dc2"}, Priority: 70,
		Region: "eu", Namespace: "prod", NodePool: "gpu", AllAtOnce: true,
		Meta: map[string]string{"owner": "team-a", "n": "3"},
		TaskGroups: []*structs.TaskGroup{{
			Name: "main", Count: 2,
			Meta:          map[string]string{"owner": "team-a", "tier": "web"},
			RestartPolicy: &structs.RestartPolicy{Attempts: 5, Interval: 10 * time.Minute, Delay: 25 * time.Second, Mode: "delay", RenderTemplates: true},
			Tasks: []*structs.Task{{
				Name: "app", Driver: "raw_exec", User: "nobody", KillTimeout: 30 * time.Second, KillSignal: "SIGINT", Leader: true,
				Config: map[string]any{
					"command": "/bin/sh",
					"args":    []any{"-c", "echo ${NOMAD_ALLOC_ID} on ${attr.kernel.name}", "dc1,dc2"},
					"image":   "redis:7", "ratio": 1.5, "retries": int64(3), "debug": false,
					"labels":  map[string]any{"owner": "team-a", "tier": "web"},
					"json":    `{"a":1}`,
					"decoded": map[string]any{"b": []any{int64(1), int64(2)}},
					"mount": []any{
						map[string]any{"type": "bind", "target": "/data"},
						map[string]any{"type": "tmpfs"},
					},
					"port": []any{map[string]any{"http": []any{map[string]any{"to": int64(8080)}}}},
				},
				Env: map[string]string{
					"NAME": "web-SVC", "PORT": "${NOMAD_PORT_http}", "PARTS": "3", "FIRST": "x", "LOWER": "abc", "ALL": "a b",
				},
				Meta:      map[string]string{"version": "1"},
				LogConfig: &structs.LogConfig{MaxFiles: 3, MaxFileSizeMB: 20},
				Resources: &structs.Resources{CPU: 250, MemoryMB: 128, MemoryMaxMB: 256, DiskMB: 50},
			}, {
				Name: "side", Driver: "exec", Resources: &structs.Resources{Cores: 2, MemoryMB: 64},
			}},
		}},
	}
	if !reflect.DeepEqual(job, want) {
		t.Errorf("job mismatch\n got: %s\nwant: %s", dump(job), dump(want))
	}
}

func dump(j *structs.Job) string {
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(strings.TrimSpace(fmtAny(*j)), ", ", ",\n"))
	for _, tg := range j.TaskGroups {
		b.WriteString("\n" + fmtAny(*tg))
		for _, t := range tg.Tasks {
			b.WriteString("\n  " + fmtAny(*t) + " res=" + fmtAny(t.Resources) + " logs=" + fmtAny(t.LogConfig))
		}
	}
	return b.String()
}

func TestParseErrorType(t *testing.T) {
	_, err := Parse(&ParseConfig{Path: "x.hcl", Body: []byte(`job "a" { bogus = 1 }`)})
	var perr *Error
	if !errors.As(err, &perr) || len(perr.Diags) != 1 {
		t.Fatalf("err = %#v, want *Error with one diagnostic", err)
	}
	if got := perr.Diags[0].Subject.Start; got.Line != 1 || got.Column != 11 {
		t.Errorf("subject = %+v", got)
	}
}

func TestParseFileMissing(t *testing.T) {
	if _, err := ParseFile("testdata/nope.hcl", nil); err == nil || !strings.Contains(err.Error(), "nope.hcl") {
		t.Errorf("err = %v", err)
	}
}

func TestParseRestartPartialBlockGetsTypeDefaults(t *testing.T) {
	src := `job "b" {
  type = "batch"
  group "g" {
    restart {
      attempts = 0
      mode     = "delay"
    }
    task "t" {
      driver = "raw_exec"
    }
  }
}`
	job, err := Parse(&ParseConfig{Path: "b.hcl", Body: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	want := structs.RestartPolicy{Attempts: 0, Interval: 24 * time.Hour, Delay: 15 * time.Second, Mode: "delay"}
	if got := job.TaskGroups[0].RestartPolicy; *got != want {
		t.Errorf("restart = %+v, want %+v", got, want)
	}
}
