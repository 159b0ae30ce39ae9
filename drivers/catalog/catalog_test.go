package catalog

import (
	"reflect"
	"testing"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/qemu"
	"github.com/nomadish/nomadish/drivers/virt"
)

func TestBuiltinNames(t *testing.T) {
	want := []string{"docker", "exec", "mock_driver", "qemu", "raw_exec", "virt"}
	if got := Builtin.Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Names = %v, want %v", got, want)
	}
	for _, n := range append(want, "mock") {
		if d, err := Builtin.New(n, nil); err != nil || d == nil {
			t.Fatalf("New(%q): %v", n, err)
		}
	}
}

// The enablement rules the client applied before they moved here.
func TestBuiltinEnabled(t *testing.T) {
	qemuOn, virtOn := qemu.Installed(), virt.Installed()
	for _, tc := range []struct {
		name    string
		host    base.Host
		plugins map[string]map[string]any
		want    map[string]map[string]any
	}{
		{"linux user, no blocks", base.Host{OS: "linux"}, nil,
			map[string]map[string]any{"docker": nil}},
		{"linux root", base.Host{OS: "linux", Root: true}, nil,
			map[string]map[string]any{"docker": nil, "exec": {}}},
		{"darwin root", base.Host{OS: "darwin", Root: true}, nil,
			map[string]map[string]any{}},
		{"raw_exec disabled", base.Host{OS: "darwin"}, map[string]map[string]any{"raw_exec": {"enabled": false}},
			map[string]map[string]any{}},
		{"blocks", base.Host{OS: "linux", Root: true}, map[string]map[string]any{
			"raw_exec": {"enabled": true}, "exec": {"x": 1}, "docker": {"y": 2}, "qemu": {"image_paths": []any{"/i"}}, "mock_driver": nil},
			map[string]map[string]any{"raw_exec": {"enabled": true}, "exec": {"x": 1}, "docker": {"y": 2},
				"qemu": {"image_paths": []any{"/i"}}, "mock_driver": {}}},
	} {
		if qemuOn {
			if _, ok := tc.want["qemu"]; !ok {
				tc.want["qemu"] = tc.plugins["qemu"]
			}
		}
		if virtOn {
			tc.want["virt"] = nil
		}
		if got := Builtin.Enabled(tc.host, tc.plugins); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Enabled = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Every built-in driver declares its task config schema, found by the name
// a job gives (not by an alias).
func TestBuiltinSchemas(t *testing.T) {
	for _, n := range Builtin.Names() {
		if s, ok := Builtin.TaskSchema(n); !ok || s == nil || len(s.Fields) == 0 {
			t.Errorf("TaskSchema(%q) = %v, %v", n, s, ok)
		}
	}
	if _, ok := Builtin.TaskSchema("mock"); ok {
		t.Error(`TaskSchema("mock"): an alias is not a driver name in jobs`)
	}
}
