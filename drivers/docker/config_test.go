package docker

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

func TestParseTaskConfigErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{}, "image is required"},
		{map[string]any{"image": "x", "imgae": "y"}, "imgae: unknown key"},
		{map[string]any{"image": "x", "ports": "http"}, "ports: must be a list of strings"},
		{map[string]any{"image": "x", "force_pull": "yes"}, "force_pull: must be a bool"},
		{map[string]any{"image": "x", "auth": map[string]any{"user": "u"}}, `auth: unknown key "user"`},
	} {
		_, err := parseTaskConfig(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseTaskConfig(%v) = %v, want %q", tc.in, err, tc.want)
		}
	}
	c, err := parseTaskConfig(map[string]any{"image": "i", "command": "c", "args": []any{"a"}, "entrypoint": []any{"e"},
		"labels": []any{map[string]any{"k": "v"}}, "volumes": []any{"d:/d:ro"}, "network_mode": "host",
		"ports": []any{"http"}, "cpu_hard_limit": true, "force_pull": true, "auth_soft_fail": true})
	if err != nil || c.Labels["k"] != "v" || !c.CPUHardLimit || !c.ForcePull || !c.AuthSoftFail || c.NetworkMode != "host" {
		t.Fatalf("parseTaskConfig = %+v, %v", c, err)
	}
}

func TestResourcesAsNomad(t *testing.T) {
	r := resources(base.Resources{CPUShares: 500, MemoryMB: 100}, false)
	if r.Memory != 100<<20 || r.MemoryReservation != 0 || r.MemorySwap != r.Memory || r.CPUShares != 500 || r.CPUQuota != 0 {
		t.Errorf("memory only: %+v", r)
	}
	r = resources(base.Resources{CPUShares: 500, MemoryMB: 100, MemoryMaxMB: 200}, true)
	if r.Memory != 200<<20 || r.MemoryReservation != 100<<20 || r.CPUPeriod != 100000 || r.CPUQuota <= 0 {
		t.Errorf("memory_max and cpu_hard_limit: %+v", r)
	}
}

func TestPortBindingsFromTaskEnv(t *testing.T) {
	env := map[string]string{"NOMAD_HOST_PORT_my_http": "23456", "NOMAD_PORT_my_http": "8080", "NOMAD_HOST_IP_my_http": "10.0.0.5"}
	set, pm, err := portBindings([]string{"my-http"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := set["8080/tcp"]; !ok || len(pm["8080/udp"]) != 1 || pm["8080/tcp"][0].HostPort != "23456" || pm["8080/tcp"][0].HostIP != "10.0.0.5" {
		t.Errorf("set %v map %v", set, pm)
	}
	if _, _, err := portBindings([]string{"db"}, env); err == nil || !strings.Contains(err.Error(), `"db" is not a port of the group's network`) {
		t.Errorf("unknown label: %v", err)
	}
}

type buf struct{ bytes.Buffer }

func (*buf) Close() error { return nil }

func TestStampWriterStripsAndResumes(t *testing.T) {
	last := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	stamp := func(at time.Time, msg string) []byte { return []byte(at.Format(time.RFC3339Nano) + " " + msg) }
	var out buf
	s := &stampWriter{w: &out, tail: []byte("a\nb\n"), until: last}
	for _, m := range []struct {
		at  time.Time
		msg string
	}{
		{last.Add(-time.Hour), "old\n"},        // long before the last write: dropped
		{last.Add(-time.Second), "b\n"},        // in the tail: dropped
		{last.Add(-time.Millisecond), "c\n"},   // not in the tail: written
		{last.Add(time.Second), "b\n"},         // after until: written even if in the tail
		{last.Add(2 * time.Second), "plain\n"}, // normal
	} {
		p := stamp(m.at, m.msg)
		if n, err := s.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	_, _ = io.WriteString(s, "no-stamp\n")
	if got := out.String(); got != "c\nb\nplain\nno-stamp\n" {
		t.Errorf("written %q", got)
	}
}

func TestSetConfigBlocks(t *testing.T) {
	d := New(nil).(*Driver)
	err := d.SetConfig(map[string]any{"endpoint": "unix:///tmp/x.sock",
		"volumes": []any{map[string]any{"enabled": true}}, "gc": []any{map[string]any{"image": true, "image_delay": "3m"}},
		"allow_privileged": false})
	if err != nil || !d.cfg.VolumesEnabled || !d.cfg.GCImage || d.cfg.Endpoint != "unix:///tmp/x.sock" {
		t.Fatalf("SetConfig: %v, %+v", err, d.cfg)
	}
	for msg, cfg := range map[string]map[string]any{
		`volumes: unknown key "enable"`: {"volumes": []any{map[string]any{"enable": true}}},
		"gc: image must be a bool":      {"gc": map[string]any{"image": "yes"}},
		"endpont: unknown key":          {"endpont": "x"},
	} {
		if err := d.SetConfig(cfg); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("SetConfig(%v) = %v, want %q", cfg, err, msg)
		}
	}
}
