package qemu

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/hostpath"
)

// taskConfig is a task's `config` block, with Nomad's qemu names.
type taskConfig struct {
	ImagePath        string
	Accelerator      string // "kvm" or "tcg"; default kvm when /dev/kvm exists
	Kernel, Initrd   string
	Append           string
	Args             []string
	PortMap          map[string]int // port label -> guest port
	GracefulShutdown bool
	DriveInterface   string // default "ide"
}

// parseTaskConfig decodes the generic config map (see base.TaskConfig).
// Errors name the key. The known keys are Schema's (schema.go), and a
// config it accepts is checked against Schema too.
func parseTaskConfig(c map[string]any, kvm bool) (*taskConfig, error) {
	for k := range c {
		if _, ok := Schema.Field(k); !ok {
			return nil, fmt.Errorf("unknown config key %q (known: %s)", k, strings.Join(Schema.Keys(), ", "))
		}
	}
	tc := &taskConfig{Accelerator: "tcg", DriveInterface: "ide"}
	if kvm {
		tc.Accelerator = "kvm"
	}
	for key, dst := range map[string]*string{"image_path": &tc.ImagePath, "accelerator": &tc.Accelerator,
		"kernel": &tc.Kernel, "initrd": &tc.Initrd, "append": &tc.Append, "drive_interface": &tc.DriveInterface} {
		if v, ok := c[key]; ok {
			s, isStr := v.(string)
			if !isStr {
				return nil, fmt.Errorf("%s must be a string, got %T", key, v)
			}
			*dst = s
		}
	}
	if v, ok := c["graceful_shutdown"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			return nil, fmt.Errorf("graceful_shutdown must be a bool, got %T", v)
		}
		tc.GracefulShutdown = b
	}
	var err error
	if tc.Args, err = stringList("args", c["args"]); err != nil {
		return nil, err
	}
	if tc.PortMap, err = portMap(c["port_map"]); err != nil {
		return nil, err
	}
	if err := tc.validate(kvm); err != nil {
		return tc, err
	}
	return tc, Schema.Validate(c)
}

func (tc *taskConfig) validate(kvm bool) error {
	switch {
	case tc.ImagePath == "" && tc.Kernel == "":
		return fmt.Errorf("image_path or kernel is required")
	case tc.Accelerator != "tcg" && tc.Accelerator != "kvm":
		return fmt.Errorf("accelerator must be \"kvm\" or \"tcg\", got %q", tc.Accelerator)
	case tc.Accelerator == "kvm" && !kvm:
		return fmt.Errorf("accelerator \"kvm\" requested but %s is not available on this node", kvmDevice)
	case (tc.Initrd != "" || tc.Append != "") && tc.Kernel == "":
		return fmt.Errorf("initrd and append need kernel")
	}
	return nil
}

// stringList accepts a list of strings (nil: empty).
func stringList(key string, v any) ([]string, error) {
	switch l := v.(type) {
	case nil:
		return nil, nil
	case []string:
		return l, nil
	case []any:
		out := make([]string, 0, len(l))
		for i, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s[%d] must be a string, got %T", key, i, e)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s must be a list of strings, got %T", key, v)
}

// portMap accepts `port_map { http = 80 }` (a map) or a list of such maps
// (a repeated block).
func portMap(v any) (map[string]int, error) {
	out := map[string]int{}
	var blocks []any
	switch m := v.(type) {
	case nil:
		return out, nil
	case map[string]any:
		blocks = []any{m}
	case []any:
		blocks = m
	default:
		return nil, fmt.Errorf("port_map must be a map of port label to guest port, got %T", v)
	}
	for _, b := range blocks {
		m, ok := b.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("port_map must be a map of port label to guest port, got %T", b)
		}
		for label, p := range m {
			port, err := toPort(p)
			if err != nil {
				return nil, fmt.Errorf("port_map.%s: %w", label, err)
			}
			out[label] = port
		}
	}
	return out, nil
}

func toPort(v any) (int, error) {
	var n int64
	switch p := v.(type) {
	case int64:
		n = p
	case int:
		n = int64(p)
	case float64:
		n = int64(p)
		if float64(n) != p {
			return 0, fmt.Errorf("port %v is not an integer", p)
		}
	case string:
		var err error
		if n, err = strconv.ParseInt(p, 10, 64); err != nil {
			return 0, fmt.Errorf("port %q is not a number", p)
		}
	default:
		return 0, fmt.Errorf("port must be a number, got %T", v)
	}
	if n < 1 || n > 65535 {
		return 0, fmt.Errorf("port %d out of range 1-65535", n)
	}
	return int(n), nil
}

// resolveFile finds a task's image, kernel or initrd: relative paths are
// in the task dir; the file (symlinks resolved) must lie in the alloc dir
// or under one of the plugin's image_paths. Errors name the key.
func resolveFile(key, p string, cfg *base.TaskConfig, imagePaths []string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cfg.TaskDir, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", key, p, err)
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s %q is not a regular file", key, p)
	}
	allowed := append([]string{cfg.AllocDir, cfg.TaskDir}, imagePaths...)
	for _, dir := range allowed {
		if dir == "" {
			continue
		}
		if d, err := filepath.EvalSymlinks(dir); err == nil && hostpath.Within(real, d) {
			return real, nil
		}
	}
	return "", fmt.Errorf("%s %q is outside the allocation directory and the qemu plugin's image_paths %v: %w",
		key, p, imagePaths, ErrPathNotAllowed)
}

// hostPorts maps each port_map label to the port user networking listens
// on: the host port the scheduler gave the task (NOMAD_HOST_PORT_<label>),
// or, when qemu runs in the group's network namespace (inNamespace), the
// port's `to` inside it (NOMAD_PORT_<label>), which the client's CNI
// portmap forwards the host port to.
func hostPorts(pm map[string]int, env map[string]string, inNamespace bool) ([][2]int, error) {
	key := "NOMAD_HOST_PORT_"
	if inNamespace {
		key = "NOMAD_PORT_"
	}
	labels := make([]string, 0, len(pm))
	for l := range pm {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	var out [][2]int
	for _, l := range labels {
		hp, err := strconv.Atoi(env[key+l])
		if err != nil {
			return nil, fmt.Errorf("port_map: no port labelled %q in the group's network block", l)
		}
		out = append(out, [2]int{hp, pm[l]})
	}
	return out, nil
}
