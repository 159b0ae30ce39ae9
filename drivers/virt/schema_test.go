package virt

import (
	"strings"
	"testing"

	"github.com/nomadish/nomadish/drivers/schema/schematest"
)

// TestSchemaAgreesWithParser: every key parseTaskConfig accepts is in
// Schema, and every key of Schema is read by it.
func TestSchemaAgreesWithParser(t *testing.T) {
	schematest.Agree(t, Schema, func(c map[string]any) (any, error) { return parseTaskConfig(c, true) }, schematest.Options{
		Samples: map[string]any{"accelerator": "tcg", "port_map": map[string]any{"ssh": int64(22)}},
		Base: map[string]map[string]any{"": {"image": "disk.qcow2", "kernel": "vmlinuz"},
			"os": {"machine": "q35"}, "network_interface": {"bridge": map[string]any{"name": "br0"}}},
	})
}

// Bad configs are refused with an error naming the key.
func TestParseTaskConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  map[string]any
		want string
	}{
		{map[string]any{}, "image"},
		{map[string]any{"image": "x", "bogus": 1}, "bogus"},
		{map[string]any{"image": 3}, "image"},
		{map[string]any{"image": "x", "accelerator": "hvf"}, "accelerator"},
		{map[string]any{"image": "x", "initrd": "i"}, "initrd"},
		{map[string]any{"kernel": "k", "primary_disk_size": int64(10)}, "primary_disk_size"},
		{map[string]any{"image": "x", "graceful_shutdown_timeout": "soon"}, "graceful_shutdown_timeout"},
		{map[string]any{"image": "x", "port_map": map[string]any{"http": int64(70000)}}, "port_map.http"},
		{map[string]any{"image": "x", "network_interface": []any{map[string]any{"bridge": map[string]any{}}}}, "name"},
		{map[string]any{"image": "x", "port_map": map[string]any{"http": int64(80)},
			"network_interface": []any{map[string]any{"bridge": map[string]any{"name": "br0"}}}}, "port_map"},
	} {
		_, err := parseTaskConfig(c.cfg, false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one naming %q", c.cfg, err, c.want)
		}
	}
}

// The shorthand cloud-init keys make a seed; a config without any makes none.
func TestParseCloudInit(t *testing.T) {
	tc, err := parseTaskConfig(map[string]any{"image": "x", "user_data": "#cloud-config\n", "cmds": []any{"echo hi"},
		"default_user_password": "pw"}, false)
	if err != nil || tc.CloudInit == nil || tc.CloudInit.UserData != "#cloud-config\n" || tc.CloudInit.Password != "pw" ||
		len(tc.CloudInit.Cmds) != 1 {
		t.Fatalf("cloud-init shorthand: %+v, %v", tc, err)
	}
	tc, err = parseTaskConfig(map[string]any{"kernel": "k"}, false)
	if err != nil || tc.CloudInit != nil {
		t.Fatalf("no cloud-init keys: %+v, %v", tc.CloudInit, err)
	}
}

func TestParseURI(t *testing.T) {
	ep, err := parseURI("qemu:///system?socket=/tmp/s")
	if err != nil || ep.Socket != "/tmp/s" || ep.URI != "qemu:///system" {
		t.Fatalf("parseURI = %+v, %v", ep, err)
	}
	for _, bad := range []string{"qemu:///session", "xen:///system", "qemu+ssh://h/system", "qemu:///system?x=1"} {
		if _, err := parseURI(bad); err == nil || !strings.Contains(err.Error(), "uri") {
			t.Errorf("parseURI(%q) = %v, want an error naming uri", bad, err)
		}
	}
}

// A bridge's ports must be labels of the group's network block; the error
// names the bridge and the label.
func TestCheckBridgePorts(t *testing.T) {
	env := map[string]string{"NOMAD_PORT_http": "8080", "NOMAD_HOST_PORT_http": "20080"}
	if err := checkBridgePorts([]bridge{{Name: "br0", Ports: []string{"http"}}, {Name: "br1"}}, env); err != nil {
		t.Fatalf("known label: %v", err)
	}
	err := checkBridgePorts([]bridge{{Name: "br0", Ports: []string{"http", "htps"}}}, env)
	if err == nil || !strings.Contains(err.Error(), `"br0"`) || !strings.Contains(err.Error(), `"htps"`) {
		t.Fatalf("unknown label: %v", err)
	}
}

// port_map labels resolve to the scheduler's host ports; an unknown label
// is an error naming it.
func TestForwards(t *testing.T) {
	env := map[string]string{"NOMAD_HOST_PORT_http": "20080", "NOMAD_PORT_http": "8080"}
	got, err := forwards(map[string]int{"http": 80}, env)
	if err != nil || len(got) != 1 || got[0] != [2]int{20080, 80} {
		t.Fatalf("forwards = %v, %v", got, err)
	}
	if _, err := forwards(map[string]int{"ssh": 22}, env); err == nil || !strings.Contains(err.Error(), `"ssh"`) {
		t.Fatalf("unknown label: %v", err)
	}
}
