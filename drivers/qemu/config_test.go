package qemu

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/drivers/base"
)

func TestParseTaskConfig(t *testing.T) {
	cases := []struct {
		name string
		in   map[string]any
		kvm  bool
		want *taskConfig
		err  string
	}{
		{name: "image, defaults without kvm", in: map[string]any{"image_path": "local/disk.qcow2"},
			want: &taskConfig{ImagePath: "local/disk.qcow2", Accelerator: "tcg", DriveInterface: "ide", PortMap: map[string]int{}}},
		{name: "defaults with kvm", in: map[string]any{"image_path": "d.img"}, kvm: true,
			want: &taskConfig{ImagePath: "d.img", Accelerator: "kvm", DriveInterface: "ide", PortMap: map[string]int{}}},
		{name: "everything", in: map[string]any{"kernel": "/boot/vmlinuz", "initrd": "i.gz", "append": "console=ttyS0",
			"args": []any{"-nodefaults"}, "graceful_shutdown": true, "accelerator": "tcg", "drive_interface": "virtio",
			"image_path": "d.img", "port_map": map[string]any{"ssh": int64(22), "web": "80"}},
			want: &taskConfig{ImagePath: "d.img", Accelerator: "tcg", Kernel: "/boot/vmlinuz", Initrd: "i.gz",
				Append: "console=ttyS0", Args: []string{"-nodefaults"}, PortMap: map[string]int{"ssh": 22, "web": 80},
				GracefulShutdown: true, DriveInterface: "virtio"}},
		{name: "port_map as repeated blocks", in: map[string]any{"kernel": "k",
			"port_map": []any{map[string]any{"a": int64(1)}, map[string]any{"b": 2.0}}},
			want: &taskConfig{Kernel: "k", Accelerator: "tcg", DriveInterface: "ide", PortMap: map[string]int{"a": 1, "b": 2}}},
		{name: "nothing to boot", in: map[string]any{}, err: "image_path or kernel is required"},
		{name: "unknown key", in: map[string]any{"image_path": "d", "imagepath": "x"}, err: `unknown config key "imagepath"`},
		{name: "kvm without /dev/kvm", in: map[string]any{"image_path": "d", "accelerator": "kvm"}, err: "not available"},
		{name: "bad accelerator", in: map[string]any{"image_path": "d", "accelerator": "hvf"}, err: `accelerator must be`},
		{name: "initrd without kernel", in: map[string]any{"image_path": "d", "initrd": "i"}, err: "need kernel"},
		{name: "args not a list", in: map[string]any{"image_path": "d", "args": "-x"}, err: "args must be a list"},
		{name: "args element", in: map[string]any{"image_path": "d", "args": []any{int64(1)}}, err: "args[0] must be a string"},
		{name: "graceful not bool", in: map[string]any{"image_path": "d", "graceful_shutdown": "yes"}, err: "graceful_shutdown must be a bool"},
		{name: "image not string", in: map[string]any{"image_path": int64(3)}, err: "image_path must be a string"},
		{name: "port out of range", in: map[string]any{"image_path": "d", "port_map": map[string]any{"x": int64(70000)}}, err: "port_map.x: port 70000 out of range"},
		{name: "port not integer", in: map[string]any{"image_path": "d", "port_map": map[string]any{"x": 1.5}}, err: "port_map.x"},
		{name: "port_map not a map", in: map[string]any{"image_path": "d", "port_map": "x=1"}, err: "port_map must be a map"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseTaskConfig(tc.in, tc.kvm)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestCommandLine(t *testing.T) {
	tc := &taskConfig{Accelerator: "tcg", DriveInterface: "virtio", Append: "console=ttyS0", Args: []string{"-nodefaults"}}
	cfg := &base.TaskConfig{Name: "vm", Resources: base.Resources{MemoryMB: 256, Cores: []uint16{0, 1, 4}}}
	f := files{image: "/a,b/disk.img", kernel: "/boot/k", initrd: "/x/i.gz"}
	got := strings.Join(commandLine(tc, cfg, f, "/t/qmp.sock", [][2]int{{23456, 22}}), " ")
	want := "-machine type=pc,accel=tcg -name vm -m 256M -smp 3 -display none -no-reboot -serial stdio " +
		"-qmp unix:/t/qmp.sock,server=on,wait=off -drive file=/a,,b/disk.img,if=virtio -kernel /boot/k " +
		"-initrd /x/i.gz -append console=ttyS0 " +
		"-netdev user,id=user.0,hostfwd=tcp::23456-:22,hostfwd=udp::23456-:22 -device virtio-net,netdev=user.0 -nodefaults"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	tc.Accelerator = "kvm"
	got = strings.Join(commandLine(tc, &base.TaskConfig{Name: "vm"}, files{kernel: "/k"}, "/s", nil), " ")
	if !strings.Contains(got, "-m 128M -smp 1 ") || !strings.Contains(got, "-enable-kvm -cpu host") || strings.Contains(got, "-netdev") {
		t.Fatalf("kvm, defaults: %s", got)
	}
	tc.Accelerator = "tcg"
	got = strings.Join(commandLine(tc, &base.TaskConfig{Name: "vm", Resources: base.Resources{MemoryMB: 64, NUMANodes: []uint16{0, 2}}}, files{kernel: "/k"}, "/s", nil), " ")
	if !strings.Contains(got, "-machine type=pc,accel=tcg,memory-backend=ram0 ") ||
		!strings.Contains(got, "-object memory-backend-ram,id=ram0,size=64M,host-nodes=0,host-nodes=2,policy=bind ") {
		t.Fatalf("NUMA memory binding: %s", got)
	}
}

func TestHostPorts(t *testing.T) {
	env := map[string]string{"NOMAD_HOST_PORT_ssh": "20001", "NOMAD_HOST_PORT_web": "20002"}
	got, err := hostPorts(map[string]int{"web": 80, "ssh": 22}, env, false)
	if err != nil || !reflect.DeepEqual(got, [][2]int{{20001, 22}, {20002, 80}}) {
		t.Fatalf("hostPorts = %v, %v", got, err)
	}
	// In a group network qemu listens on the port's `to` inside the namespace.
	env["NOMAD_PORT_ssh"], env["NOMAD_PORT_web"] = "2222", "8080"
	got, err = hostPorts(map[string]int{"web": 80, "ssh": 22}, env, true)
	if err != nil || !reflect.DeepEqual(got, [][2]int{{2222, 22}, {8080, 80}}) {
		t.Fatalf("hostPorts in a namespace = %v, %v", got, err)
	}
	if _, err := hostPorts(map[string]int{"db": 5432}, env, false); err == nil || !strings.Contains(err.Error(), `"db"`) {
		t.Fatalf("unknown label: %v", err)
	}
}

// Images, kernels and initrds must be in the alloc dir or under the
// plugin's image_paths; symlinks are followed before the check.
func TestResolveFileImagePaths(t *testing.T) {
	root := t.TempDir()
	alloc := filepath.Join(root, "alloc1")
	task := filepath.Join(alloc, "vm")
	images := filepath.Join(root, "images")
	other := filepath.Join(root, "other")
	for _, d := range []string{filepath.Join(task, "local"), images, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(task, "local", "d.img"), filepath.Join(images, "k"), filepath.Join(other, "k")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(other, "k"), filepath.Join(task, "local", "escape")); err != nil {
		t.Fatal(err)
	}
	cfg := &base.TaskConfig{AllocDir: alloc, TaskDir: task}
	cases := []struct {
		path       string
		imagePaths []string
		ok         bool
	}{
		{"local/d.img", nil, true},
		{filepath.Join(task, "local", "d.img"), nil, true},
		{filepath.Join(images, "k"), []string{images}, true},
		{filepath.Join(images, "k"), nil, false},
		{filepath.Join(other, "k"), []string{images}, false},
		{"local/escape", []string{images}, false},
		{"../../other/k", nil, false},
		{filepath.Join(images+"-x", "k"), []string{images}, false},
	}
	for _, c := range cases {
		_, err := resolveFile("kernel", c.path, cfg, c.imagePaths)
		if c.ok != (err == nil) {
			t.Errorf("resolveFile(%q, image_paths %v) err = %v, want ok=%v", c.path, c.imagePaths, err, c.ok)
		}
		if err != nil && strings.Contains(c.path, "k") && !strings.Contains(c.path, "-x") && !errors.Is(err, ErrPathNotAllowed) {
			t.Errorf("resolveFile(%q): %v does not wrap ErrPathNotAllowed", c.path, err)
		}
	}
	if _, err := resolveFile("image_path", "local/missing.img", cfg, nil); err == nil || !strings.Contains(err.Error(), "image_path") {
		t.Errorf("missing file: %v", err)
	}
}

func TestSetConfig(t *testing.T) {
	d := New(nil)
	for in, want := range map[string]map[string]any{
		`unknown key "enabled"`:    {"enabled": true},
		"must be a list":           {"image_paths": "/boot"},
		"not an absolute path":     {"image_paths": []any{"boot"}},
		"image_paths[1] must be a": {"image_paths": []any{"/boot", int64(1)}},
		"args_allowlist must be":   {"args_allowlist": "-device"},
	} {
		if err := d.SetConfig(want); err == nil || !strings.Contains(err.Error(), in) {
			t.Errorf("SetConfig(%v) = %v, want %q", want, err, in)
		}
	}
	err := d.SetConfig(map[string]any{"image_paths": []any{"/boot", "/srv/images"}, "args_allowlist": []any{"-device"}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.imagePaths, []string{"/boot", "/srv/images"}) || !reflect.DeepEqual(d.argsAllowlist, []string{"-device"}) {
		t.Fatalf("image paths %v, args allowlist %v", d.imagePaths, d.argsAllowlist)
	}
}

// args: refused without an args_allowlist; with one, each flag is checked
// and every host path a value names must be in the alloc dir or image_paths.
func TestCheckArgs(t *testing.T) {
	dir := t.TempDir()
	cfg := &base.TaskConfig{AllocDir: filepath.Join(dir, "alloc"), TaskDir: filepath.Join(dir, "vm")}
	images := filepath.Join(dir, "images")
	for _, d := range []string{cfg.AllocDir, cfg.TaskDir, images} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc", filepath.Join(cfg.TaskDir, "etc-link")); err != nil {
		t.Fatal(err)
	}
	allow := []string{"-device", "-smp", "-drive", "-pidfile", "-append", "-netdev", "-fw_cfg", "-chardev"}
	for _, c := range []struct {
		args  []string
		allow []string
		err   error
		want  string
	}{
		{args: nil, allow: nil},
		{args: []string{"-device", "virtio-rng-pci"}, allow: nil, err: ErrArgNotAllowed, want: "no args_allowlist"},
		{args: []string{"-drive", "file=/etc/shadow,if=virtio", "-pidfile", "/tmp/x"}, allow: nil, err: ErrArgNotAllowed, want: "no args_allowlist"},
		{args: []string{"-device", "virtio-rng-pci", "-smp", "4"}, allow: allow},
		{args: []string{"--device", "virtio-rng-pci"}, allow: []string{"-device"}},
		{args: []string{"-device", "x", "-smp", "4"}, allow: []string{"-device"}, err: ErrArgNotAllowed, want: `args[2]: "-smp" is not in`},
		{args: []string{"-drive", "file=/etc/shadow,if=virtio"}, allow: allow, err: ErrPathNotAllowed, want: `"/etc/shadow" is outside`},
		{args: []string{"-pidfile", "/tmp/x"}, allow: allow, err: ErrPathNotAllowed, want: `"/tmp/x" is outside`},
		{args: []string{"-drive", "file=../../../../etc/passwd"}, allow: allow, err: ErrPathNotAllowed, want: "outside"},
		{args: []string{"-drive", "file=etc-link/passwd,format=raw"}, allow: allow, err: ErrPathNotAllowed, want: "outside"},
		{args: []string{"-chardev", "file,id=c,path=/var/log/x"}, allow: allow, err: ErrPathNotAllowed, want: "outside"},
		{args: []string{"-netdev", "user,id=n,smb=/home"}, allow: allow, err: ErrPathNotAllowed, want: "outside"},
		{args: []string{"/etc/shadow"}, allow: allow, err: ErrPathNotAllowed, want: "outside"},
		{args: []string{"-drive", "file=local/disk.img,if=virtio", "-pidfile", "qemu.pid"}, allow: allow},
		{args: []string{"-drive", "file=" + images + "/base.qcow2,,x,if=virtio"}, allow: allow},
		{args: []string{"-drive", "file=" + cfg.AllocDir + "/data/disk.img"}, allow: allow},
		{args: []string{"-append", "root=/dev/vda console=ttyS0"}, allow: allow},
		{args: []string{"-fw_cfg", "name=opt/cfg,file=local/cfg"}, allow: allow},
	} {
		err := checkArgs(c.args, c.allow, cfg, []string{images})
		if c.err == nil {
			if err != nil {
				t.Errorf("checkArgs(%q, %v) = %v, want ok", c.args, c.allow, err)
			}
			continue
		}
		if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("checkArgs(%q, %v) = %v, want %v containing %q", c.args, c.allow, err, c.err, c.want)
		}
	}
}
