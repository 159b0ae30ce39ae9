package jobcheck_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/drivers/catalog"
	"github.com/nomadish/nomadish/jobcheck"
	"github.com/nomadish/nomadish/structs"
)

func job(driver string, config map[string]any) *structs.Job {
	return &structs.Job{ID: "example", Type: "batch", Datacenters: []string{"dc1"}, TaskGroups: []*structs.TaskGroup{{
		Name: "g", Tasks: []*structs.Task{{Name: "t", Driver: driver, Config: config,
			Resources: &structs.Resources{CPU: 100, MemoryMB: 64}}}}}}
}

// Prepare copies, fills the namespace and canonicalizes (what the HTTP
// layer's TestJobsRegister asserted before the HTTP layer left it here).
func TestPrepareCanonicalizesACopy(t *testing.T) {
	in := job("raw_exec", map[string]any{"command": "/bin/sh", "args": []any{"-c", "echo hi"}})
	in.TaskGroups[0].Tasks[0].Resources = nil
	out, err := jobcheck.Prepare(in, "ns1", catalog.Builtin)
	if err != nil {
		t.Fatal(err)
	}
	if out.Namespace != "ns1" || out.Region != "global" || out.Name != "example" || out.Priority != 50 {
		t.Fatalf("job not canonicalized with the request's namespace: %+v", out)
	}
	if tg := out.TaskGroups[0]; tg.Count != 1 || tg.RestartPolicy == nil || tg.Tasks[0].Resources == nil {
		t.Fatalf("group not canonicalized: %+v", tg)
	}
	if in.Namespace != "" || in.Priority != 0 || in.TaskGroups[0].RestartPolicy != nil {
		t.Fatalf("the submitted job was modified: %+v", in)
	}
}

func TestPrepareRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		job  *structs.Job
		want string
	}{
		{"nil", nil, "missing job"},
		{"invalid", &structs.Job{ID: "x", Priority: 500}, "invalid job: "},
		{"unknown driver", job("raw_exce", nil), `group "g": task "t": unknown driver "raw_exce"; Did you mean "raw_exec"?`},
		{"far from any driver", job("nope", nil), `unknown driver "nope"; known drivers: docker, exec, mock_driver, qemu, raw_exec`},
		{"unknown key", job("raw_exec", map[string]any{"comand": "/bin/true"}),
			`group "g": task "t": config: unknown key "comand"; Did you mean "command"?`},
		{"wrong type", job("docker", map[string]any{"image": "i", "privileged": "yes"}),
			`group "g": task "t": config: key "privileged" must be a bool; got a string`},
		{"list element", job("docker", map[string]any{"image": "i", "args": []any{"a", true}}),
			`config: key "args" must be a list of strings; got a list whose element 1 is a bool`},
		{"nested", job("docker", map[string]any{"image": "i", "mount": []any{map[string]any{"targt": "/x"}}}),
			`config: mount[0]: unknown key "targt"; Did you mean "target"?`},
		{"one of", job("qemu", map[string]any{}), `config: missing required key: one of "image_path", "kernel" must be set`},
		{"duration", job("mock_driver", map[string]any{"run_for": "soon"}), `config: key "run_for" must be a duration ("10s"); got "soon"`},
	} {
		_, err := jobcheck.Prepare(c.job, "", catalog.Builtin)
		code, msg := structs.ErrorCode(err)
		if code != structs.ErrCodeBadRequest || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %d %q, want 400 containing %q", c.name, code, msg, c.want)
		}
	}
}

// Config values as the HTTP API (JSON: float64) and RPC (msgpack: int64,
// uint64) decode them pass; so do the drivers' documented forms.
func TestPrepareAcceptsDecodedForms(t *testing.T) {
	for name, j := range map[string]*structs.Job{
		"json numbers":  job("mock_driver", map[string]any{"exit_code": 3.0, "run_for": "1s"}),
		"msgpack":       job("mock_driver", map[string]any{"exit_code": uint64(3), "kill_after": int64(5)}),
		"block as list": job("docker", map[string]any{"image": "i", "auth": []any{map[string]any{"username": "u"}}, "labels": []any{map[string]any{"a": "b"}}}),
		"string list":   job("raw_exec", map[string]any{"command": "x", "args": []string{"a"}}),
		"null is unset": job("docker", map[string]any{"image": "i", "command": nil}),
		"port_map text": job("qemu", map[string]any{"image_path": "d.img", "port_map": map[string]any{"ssh": "22"}}),
	} {
		if _, err := jobcheck.Prepare(j, "", catalog.Builtin); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Without a lookup, driver names are checked (against the built-in names)
// and configs are not: the server's behaviour before schemas.
func TestPrepareWithoutLookup(t *testing.T) {
	if _, err := jobcheck.Prepare(job("raw_exec", map[string]any{"comand": "x"}), "", nil); err != nil {
		t.Fatalf("config checked without a lookup: %v", err)
	}
	if _, err := jobcheck.Prepare(job("nope", nil), "", nil); err == nil || !strings.Contains(err.Error(), `unknown driver "nope"`) {
		t.Fatalf("unknown driver without a lookup: %v", err)
	}
	for _, n := range catalog.Builtin.Names() {
		if _, err := jobcheck.Prepare(job(n, nil), "", nil); err != nil {
			t.Errorf("built-in driver %q refused without a lookup: %v", n, err)
		}
	}
	if probs := jobcheck.Drivers(job("mock", nil), nil); len(probs) != 1 {
		t.Errorf("the alias mock: %v, want refused", probs)
	}
}

func TestCheckCanonicalizesInPlace(t *testing.T) {
	j := job("raw_exec", map[string]any{"command": "x"})
	if err := jobcheck.Check(j, catalog.Builtin); err != nil || j.Priority != 50 {
		t.Fatalf("Check: %v, priority %d", err, j.Priority)
	}
	err := jobcheck.Check(job("raw_exec", map[string]any{"command": "x", "arg": []any{}}), catalog.Builtin)
	if err == nil || !reflect.DeepEqual(strings.Split(err.Error(), "\n"),
		[]string{`group "g": task "t": config: unknown key "arg"; Did you mean "args"?`}) {
		t.Fatalf("Check: %v", err)
	}
}
