package taskrunner_test

import (
	"reflect"
	"testing"
	"testing/synctest"

	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/structs"
)

var testNode = &structs.Node{ID: "node-id-1", Name: "web-1", Datacenter: "dc2", NodeClass: "gpu", NodePool: "prod",
	Attributes: map[string]string{"kernel.name": "linux", "unique.hostname": "host1"},
	Meta:       map[string]string{"rack": "r7", "env": "staging"}}

func TestInterpolate(t *testing.T) {
	env := map[string]string{"NOMAD_ALLOC_ID": "a1", "FOO": "foo", "node.unique.id": "shadowed"}
	node := taskrunner.NodeValues(testNode, "eu")
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"${NOMAD_ALLOC_ID}", "a1"},
		{"id=${NOMAD_ALLOC_ID}/${FOO}.log", "id=a1/foo.log"},
		{"${attr.kernel.name}", "linux"},
		{"${attr.unique.hostname}", "host1"},
		{"${meta.rack}-${meta.env}", "r7-staging"},
		{"${node.unique.id}", "shadowed"}, // the environment comes first
		{"${node.unique.name} ${node.datacenter} ${node.region} ${node.class} ${node.pool}", "web-1 dc2 eu gpu prod"},
		{"${UNKNOWN}", "${UNKNOWN}"},
		{"${attr.missing} ${meta.missing} ${node.missing}", "${attr.missing} ${meta.missing} ${node.missing}"},
		{"$FOO", "$FOO"},           // only the braced form, as Nomad
		{"${FOO", "${FOO"},         // unterminated
		{"${a + b}", "${a + b}"},   // not a name
		{"$${FOO}", "$foo"},        // no escaping in the client
		{"${FOO}${FOO}", "foofoo"}, // adjacent
	} {
		if got := taskrunner.Interpolate(tc.in, env, node); got != tc.want {
			t.Errorf("Interpolate(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNodeValuesNilNode(t *testing.T) {
	got := taskrunner.NodeValues(nil, "global")
	if !reflect.DeepEqual(got, map[string]string{"node.region": "global"}) {
		t.Fatalf("NodeValues(nil) = %v", got)
	}
	if s := taskrunner.Interpolate("${attr.kernel.name}", nil, got); s != "${attr.kernel.name}" {
		t.Fatalf("got %q", s)
	}
}

func TestInterpolateConfig(t *testing.T) {
	env := map[string]string{"NOMAD_TASK_DIR": "/t/local", "PORT": "8080"}
	node := taskrunner.NodeValues(testNode, "global")
	cfg := map[string]any{
		"command": "${NOMAD_TASK_DIR}/bin/server",
		"args":    []any{"-port", "${PORT}", "-dc=${node.datacenter}", int64(3), []any{"${meta.rack}"}},
		"nested":  map[string]any{"path": "${attr.kernel.name}", "n": 1.5, "flag": true, "keep": "${nope}"},
		"blocks":  []map[string]any{{"x": "${PORT}"}},
		"strs":    []string{"${PORT}"},
		"labels":  map[string]string{"rack": "${meta.rack}"},
		"none":    nil,
	}
	want := map[string]any{
		"command": "/t/local/bin/server",
		"args":    []any{"-port", "8080", "-dc=dc2", int64(3), []any{"r7"}},
		"nested":  map[string]any{"path": "linux", "n": 1.5, "flag": true, "keep": "${nope}"},
		"blocks":  []map[string]any{{"x": "8080"}},
		"strs":    []string{"8080"},
		"labels":  map[string]string{"rack": "r7"},
		"none":    nil,
	}
	got := taskrunner.InterpolateConfig(cfg, env, node)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
	if cfg["command"] != "${NOMAD_TASK_DIR}/bin/server" || cfg["args"].([]any)[1] != "${PORT}" ||
		cfg["nested"].(map[string]any)["path"] != "${attr.kernel.name}" {
		t.Fatalf("the job's config was modified: %v", cfg)
	}
	if taskrunner.InterpolateConfig(nil, env) != nil {
		t.Fatal("nil config must stay nil")
	}
}

// TestStartInterpolatesAndMapsLogs: the runner hands the driver a config,
// env and user interpolated with the task env and the node, and the logs
// block's rotation; the job's task is left as it was.
func TestStartInterpolatesAndMapsLogs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drv := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "t", Driver: "mock", User: "${meta.env}-user",
			Config:    map[string]any{"run_for": "1s", "args": []any{"${NOMAD_ALLOC_ID}", "${attr.kernel.name}", "${GREETING}"}},
			Env:       map[string]string{"GREETING": "hi-${node.unique.name}", "RAW": "${nope}"},
			LogConfig: &structs.LogConfig{MaxFiles: 3, MaxFileSizeMB: 7}}
		tr := newRunnerWith(t, testAlloc(structs.JobTypeBatch, task, nil), drv, func(c *taskrunner.Config) {
			c.Node = func() *structs.Node { return testNode.Copy() }
		})
		go tr.Run()
		<-tr.WaitCh()
		started := drv.Started()
		if len(started) != 1 {
			t.Fatalf("started %d times", len(started))
		}
		cfg := started[0]
		if got := cfg.Config["args"]; !reflect.DeepEqual(got, []any{"a1", "linux", "hi-web-1"}) {
			t.Errorf("config args = %v", got)
		}
		if cfg.Env["GREETING"] != "hi-web-1" || cfg.Env["RAW"] != "${nope}" || cfg.User != "staging-user" {
			t.Errorf("env %v user %q", cfg.Env, cfg.User)
		}
		if cfg.LogMaxFiles != 3 || cfg.LogMaxFileSizeMB != 7 || cfg.StdoutPath == "" || cfg.StderrPath == "" {
			t.Errorf("logs: files %d size %d stdout %q stderr %q", cfg.LogMaxFiles, cfg.LogMaxFileSizeMB, cfg.StdoutPath, cfg.StderrPath)
		}
		if task.Config["args"].([]any)[0] != "${NOMAD_ALLOC_ID}" || task.Env["GREETING"] != "hi-${node.unique.name}" {
			t.Errorf("the job's task was modified: %v %v", task.Config, task.Env)
		}
	})
}

// TestLogsDisabled: logs { disabled = true } gives the driver no log paths,
// which drivers take as "discard the stream".
func TestLogsDisabled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drv := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "t", Driver: "mock", Config: map[string]any{"run_for": "1s"},
			LogConfig: &structs.LogConfig{Disabled: true}}
		tr := newRunnerWith(t, testAlloc(structs.JobTypeBatch, task, nil), drv, nil)
		go tr.Run()
		<-tr.WaitCh()
		if cfg := drv.Started()[0]; cfg.StdoutPath != "" || cfg.StderrPath != "" {
			t.Fatalf("log paths %q %q with logs disabled", cfg.StdoutPath, cfg.StderrPath)
		}
	})
}
