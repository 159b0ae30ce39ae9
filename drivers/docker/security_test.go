package docker

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/mount"

	"github.com/nomadish/nomadish/drivers/base"
)

// allocLayout makes <tmp>/alloc-id/{alloc,web/{local,data}} and returns the
// task config of task web in it.
func allocLayout(t *testing.T) *base.TaskConfig {
	t.Helper()
	root := filepath.Join(t.TempDir(), "alloc-id")
	for _, d := range []string{"alloc/data", "web/local", "web/data", "db/local"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &base.TaskConfig{Name: "web", AllocDir: filepath.Join(root, "alloc"), TaskDir: filepath.Join(root, "web"),
		Config: map[string]any{"image": "i"}}
}

// build parses extra into the task's config and builds the container
// config with the plugin config pc.
func build(t *testing.T, cfg *base.TaskConfig, pc pluginConfig, extra map[string]any) error {
	t.Helper()
	m := map[string]any{"image": "i"}
	for k, v := range extra {
		m[k] = v
	}
	tc, err := parseTaskConfig(m)
	if err != nil {
		return err
	}
	_, _, err = containerConfig(cfg, tc, pc)
	return err
}

// Every option beyond an ordinary container is refused by the default
// plugin config, with an error naming the option and the plugin key.
func TestDefaultPluginConfigRefusesEachEscape(t *testing.T) {
	cfg := allocLayout(t)
	up := strings.Repeat("../", 12)
	bind := func(src string) map[string]any {
		return map[string]any{"mount": []any{map[string]any{"type": "bind", "source": src, "target": "/h"}}}
	}
	for _, tc := range []struct {
		name  string
		extra map[string]any
		want  string
	}{
		{"volume traversal", map[string]any{"volumes": []any{up + ":/hostroot"}}, "outside the allocation directory"},
		{"volume absolute", map[string]any{"volumes": []any{"/etc:/e"}}, "volumes { enabled = true }"},
		{"volume dotdot in the middle", map[string]any{"volumes": []any{"data/../../../x:/x"}}, "outside the allocation directory"},
		{"bind traversal", bind("../../.."), "mount #0: bind source"},
		{"bind absolute", bind("/"), "volumes { enabled = true }"},
		{"volume driver", map[string]any{"mount": []any{map[string]any{"type": "volume", "source": "v", "target": "/v",
			"volume_options": []any{map[string]any{"driver_config": []any{map[string]any{"name": "local",
				"options": []any{map[string]any{"type": "none", "o": "bind", "device": "/"}}}}}}}}}, "driver_config needs volumes { enabled = true }"},
		{"volume named by path", map[string]any{"mount": []any{map[string]any{"type": "volume", "source": "/etc", "target": "/v"}}}, "must be a volume name"},
		{"privileged", map[string]any{"privileged": true}, "privileged: needs allow_privileged = true"},
		{"cap_add", map[string]any{"cap_add": []any{"SYS_ADMIN"}}, "cap_add [SYS_ADMIN]: not in the docker plugin config's allow_caps"},
		{"cap_add net_raw", map[string]any{"cap_add": []any{"cap_net_raw"}}, "cap_add [NET_RAW]"},
		{"cap_add all", map[string]any{"cap_add": []any{"all"}}, "cap_add [ALL]"},
		{"devices", map[string]any{"devices": []any{map[string]any{"host_path": "/dev/sda"}}}, `devices #0: host_path "/dev/sda"`},
		{"security_opt", map[string]any{"security_opt": []any{"seccomp=unconfined"}}, `security_opt "seccomp=unconfined"`},
		{"pid_mode host", map[string]any{"pid_mode": "host"}, `pid_mode "host": sharing the host's`},
		{"ipc_mode host", map[string]any{"ipc_mode": "host"}, `ipc_mode "host"`},
		{"uts_mode host", map[string]any{"uts_mode": "host"}, `uts_mode "host"`},
		{"userns_mode host", map[string]any{"userns_mode": "host"}, `userns_mode "host"`},
		{"network_mode host", map[string]any{"network_mode": "host"}, `network_mode "host": sharing the host's`},
		{"network_mode container", map[string]any{"network_mode": "container:other"}, `network_mode "container:other"`},
		{"pid_mode container", map[string]any{"pid_mode": "container:other"}, `pid_mode "container:other"`},
		{"sysctl host", map[string]any{"sysctl": []any{map[string]any{"kernel.core_pattern": "|/x"}}}, `sysctl "kernel.core_pattern": not a namespaced sysctl`},
		{"runtime", map[string]any{"runtime": "runsc-unsafe"}, `runtime "runsc-unsafe": not in the docker plugin config's allow_runtimes [runc nvidia]`},
	} {
		err := build(t, cfg, defaultPluginConfig(), tc.extra)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
			continue
		}
		if !errors.Is(err, ErrHostPath) && !errors.Is(err, ErrNotAllowed) && !strings.Contains(tc.want, "volume name") {
			t.Errorf("%s: %v wraps neither ErrHostPath nor ErrNotAllowed", tc.name, err)
		}
	}
}

// What the plugin config allows is passed to the engine as asked.
func TestPluginAllowlistsAllow(t *testing.T) {
	cfg := allocLayout(t)
	pc := defaultPluginConfig()
	pc.VolumesEnabled, pc.AllowPrivileged, pc.AllowHostNamespaces = true, true, true
	pc.AllowCaps = append(pc.AllowCaps, "SYS_ADMIN")
	tc, err := parseTaskConfig(map[string]any{"image": "i", "volumes": []any{"/etc:/e:ro"}, "privileged": true,
		"cap_add": []any{"SYS_ADMIN"}, "pid_mode": "host", "network_mode": "host", "security_opt": []any{"seccomp=unconfined"},
		"devices": []any{map[string]any{"host_path": "/dev/fuse"}}, "runtime": "runc",
		"sysctl": []any{map[string]any{"net.core.somaxconn": "1024"}}})
	if err != nil {
		t.Fatal(err)
	}
	_, hc, err := containerConfig(cfg, tc, pc)
	if err != nil {
		t.Fatal(err)
	}
	if !hc.Privileged || hc.PidMode != "host" || hc.NetworkMode != "host" || hc.Runtime != "runc" || len(hc.Devices) != 1 ||
		hc.Devices[0].PathInContainer != "/dev/fuse" || hc.Sysctls["net.core.somaxconn"] != "1024" || !slices.Contains(hc.Binds, "/etc:/e:ro") {
		t.Errorf("host config %+v", hc)
	}
}

// Capabilities: Nomad's defaults (no NET_RAW) narrowed by allow_caps, plus
// cap_add, minus cap_drop.
func TestCapabilitiesAsNomad(t *testing.T) {
	cfg := allocLayout(t)
	caps := func(pc pluginConfig, extra map[string]any) ([]string, []string) {
		m := map[string]any{"image": "i"}
		for k, v := range extra {
			m[k] = v
		}
		tc, err := parseTaskConfig(m)
		if err != nil {
			t.Fatal(err)
		}
		_, hc, err := containerConfig(cfg, tc, pc)
		if err != nil {
			t.Fatal(err)
		}
		return hc.CapAdd, hc.CapDrop
	}
	add, drop := caps(defaultPluginConfig(), nil)
	if !slices.Equal(drop, []string{"ALL"}) || slices.Contains(add, "NET_RAW") || !slices.Contains(add, "CHOWN") || len(add) != len(nomadDefaultCaps) {
		t.Errorf("default: add %v drop %v", add, drop)
	}
	add, _ = caps(defaultPluginConfig(), map[string]any{"cap_drop": []any{"chown", "CAP_KILL"}, "cap_add": []any{"net_bind_service"}})
	if slices.Contains(add, "CHOWN") || slices.Contains(add, "KILL") || !slices.Contains(add, "NET_BIND_SERVICE") {
		t.Errorf("cap_drop: add %v", add)
	}
	add, _ = caps(defaultPluginConfig(), map[string]any{"cap_drop": []any{"all"}, "cap_add": []any{"chown"}})
	if !slices.Equal(add, []string{"CHOWN"}) {
		t.Errorf("cap_drop all: add %v", add)
	}
	pc := defaultPluginConfig()
	pc.AllowCaps = []string{"chown"}
	if add, _ = caps(pc, nil); !slices.Equal(add, []string{"CHOWN"}) {
		t.Errorf("allow_caps [chown]: add %v", add)
	}
}

// Relative paths inside the allocation directory work without volumes
// enabled, resolved; a symlink the task made pointing outside is refused,
// one pointing inside is followed; a dangling symlink is refused.
func TestHostPathsInsideTheAllocDir(t *testing.T) {
	cfg := allocLayout(t)
	root := filepath.Dir(cfg.AllocDir)
	hp := newHostPaths(cfg.AllocDir, cfg.TaskDir, false)
	b, err := binds(cfg, []string{"data:/data:ro", "../alloc/data:/shared", "new/dir:/n", root + "/db/local:/db"}, hp, "")
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(root)
	want := []string{real + "/web/data:/data:ro", real + "/alloc/data:/shared", real + "/web/new/dir:/n", real + "/db/local:/db"}
	if !slices.Equal(b[len(b)-4:], want) {
		t.Errorf("binds %v, want suffix %v", b, want)
	}
	for name, target := range map[string]string{"escape": "/etc", "escape-rel": "../../../../..", "inside": "../data"} {
		if err := os.Symlink(target, filepath.Join(cfg.TaskDir, "local", name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/nonexistent-nomadish/x", filepath.Join(cfg.AllocDir, "data", "dangling")); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"local/escape:/e", "local/escape/sub:/e", "local/escape-rel:/e", "../alloc/data/dangling/sub:/d", "../alloc/data/dangling:/d"} {
		if _, err := binds(cfg, []string{v}, hp, ""); !errors.Is(err, ErrHostPath) {
			t.Errorf("volume %q: %v, want ErrHostPath", v, err)
		}
	}
	ms, err := resolveMounts([]mount.Mount{{Type: mount.TypeBind, Source: "local/inside", Target: "/i"}}, hp)
	if err != nil || ms[0].Source != real+"/web/data" {
		t.Errorf("symlink inside: %v %v", ms, err)
	}
	if _, err := resolveMounts([]mount.Mount{{Type: mount.TypeBind, Source: "local/escape", Target: "/i"}}, hp); !errors.Is(err, ErrHostPath) {
		t.Errorf("bind through a symlink out: %v", err)
	}
	if b, err := binds(cfg, []string{"data:/d"}, hp, "z"); err != nil || !slices.Contains(b, real+"/web/data:/d:z") || b[0] != cfg.AllocDir+":/alloc:z" {
		t.Errorf("selinuxlabel: %v %v", b, err)
	}
	if _, err := binds(cfg, []string{"nocolon"}, hp, ""); err == nil {
		t.Error("malformed volume accepted")
	}
}

func TestSetConfigAllowlists(t *testing.T) {
	d := New(nil).(*Driver)
	err := d.SetConfig(map[string]any{"allow_privileged": true, "allow_caps": []any{"all"}, "allow_runtimes": []any{"runsc"},
		"allow_host_namespaces": true, "volumes": []any{map[string]any{"enabled": true, "selinuxlabel": "z"}}})
	if err != nil || !d.cfg.AllowPrivileged || !d.cfg.AllowHostNamespaces || d.cfg.SELinuxLabel != "z" ||
		!slices.Equal(d.cfg.AllowCaps, []string{"all"}) || !slices.Equal(d.cfg.AllowRuntimes, []string{"runsc"}) {
		t.Fatalf("SetConfig: %v %+v", err, d.cfg)
	}
	if err := d.SetConfig(nil); err != nil || d.cfg.AllowPrivileged || d.cfg.VolumesEnabled || len(d.cfg.AllowCaps) != len(nomadDefaultCaps) {
		t.Fatalf("defaults: %v %+v", err, d.cfg)
	}
	for msg, cfg := range map[string]map[string]any{
		"allow_privileged: must be a bool":        {"allow_privileged": "yes"},
		"allow_caps: must be a list":              {"allow_caps": "ALL"},
		"allow_host_namespaces: must be a bool":   {"allow_host_namespaces": 1},
		"volumes: selinuxlabel: must be a string": {"volumes": map[string]any{"selinuxlabel": true}},
	} {
		if err := d.SetConfig(cfg); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("SetConfig(%v) = %v, want %q", cfg, err, msg)
		}
	}
}

// The allocation directory itself cannot be mounted (a task could swap the
// shared alloc dir for a symlink through it), and a task's own local or
// secrets dir replaced by a symlink out is refused, not mounted.
func TestAllocRootAndReplacedTaskDirsRefused(t *testing.T) {
	cfg := allocLayout(t)
	hp := newHostPaths(cfg.AllocDir, cfg.TaskDir, false)
	for _, v := range []string{"..:/root", "../:/root", filepath.Dir(cfg.AllocDir) + ":/root", "../web/..:/root"} {
		if _, err := binds(cfg, []string{v}, hp, ""); !errors.Is(err, ErrHostPath) || !strings.Contains(err.Error(), "the allocation directory itself") {
			t.Errorf("volume %q: %v", v, err)
		}
	}
	if _, err := binds(cfg, []string{"../db:/db"}, hp, ""); err != nil {
		t.Errorf("another task's dir: %v", err)
	}
	secrets := filepath.Join(cfg.TaskDir, "secrets")
	if err := os.Symlink("/etc", secrets); err != nil {
		t.Fatal(err)
	}
	for _, enabled := range []bool{false, true} {
		_, err := binds(cfg, nil, newHostPaths(cfg.AllocDir, cfg.TaskDir, enabled), "")
		if !errors.Is(err, ErrHostPath) || !strings.Contains(err.Error(), "/secrets") {
			t.Errorf("volumes enabled %v: secrets dir replaced by a symlink to /etc: %v", enabled, err)
		}
	}
}
