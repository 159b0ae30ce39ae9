package network

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// BridgePlugins are the plugins bridge mode needs.
var BridgePlugins = []string{"bridge", "host-local", "portmap", "loopback", "firewall"}

// FindPlugin returns the path of plugin in the CNI path ("" when absent).
func (c Config) FindPlugin(plugin string) string {
	for _, dir := range c.WithDefaults().pluginDirs() {
		p := filepath.Join(dir, plugin)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// PluginVersions runs every plugin in the CNI path without a CNI command,
// which makes it print "CNI <name> plugin <version>" and the spec versions
// it speaks: the value is the plugin's version, or, when its build does
// not know it ("version unknown", as Debian's), the newest spec version.
// Plugins that print neither are left out. The caller owns the map.
func (c Config) PluginVersions(ctx context.Context) map[string]string {
	out := map[string]string{}
	for _, dir := range c.WithDefaults().pluginDirs() {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if _, done := out[e.Name()]; done || e.IsDir() {
				continue
			}
			if fi, err := e.Info(); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
				continue
			}
			vctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			cmd := exec.CommandContext(vctx, filepath.Join(dir, e.Name()))
			cmd.Env = []string{} // no CNI_COMMAND: the plugin prints its about text
			buf, _ := cmd.CombinedOutput()
			cancel()
			if v := ParsePluginVersion(string(buf)); v != "" {
				out[e.Name()] = v
			}
		}
	}
	return out
}

// ParsePluginVersion reads a plugin's about text (see PluginVersions).
// Pure.
func ParsePluginVersion(about string) string {
	var version, spec string
	for _, line := range strings.Split(about, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 4 && f[0] == "CNI" && f[2] == "plugin":
			if rest := strings.Join(f[3:], " "); rest != "version unknown" {
				version = strings.TrimPrefix(f[len(f)-1], "version")
			}
		case strings.HasPrefix(line, "CNI protocol versions supported:"):
			if len(f) > 0 {
				spec = strings.TrimSuffix(f[len(f)-1], ",")
			}
		}
	}
	if version != "" {
		return version
	}
	return spec
}

// BridgeAvailable reports whether bridge mode can work here: the plugins
// are in the CNI path and the bridge kernel module is loaded, built in or
// loadable. The second value says what is missing.
func (c Config) BridgeAvailable() (bool, string) {
	for _, p := range BridgePlugins {
		if c.FindPlugin(p) == "" {
			return false, "CNI plugin " + p + " not in cni_path " + c.WithDefaults().CNIPath
		}
	}
	if !bridgeModule() {
		return false, "the bridge kernel module is not loaded and cannot be loaded"
	}
	return true, ""
}

// bridgeModule reports whether the kernel has bridge support: the module
// is loaded (/sys/module/bridge), built in, or modprobe loads it.
func bridgeModule() bool {
	if _, err := os.Stat("/sys/module/bridge"); err == nil {
		return true
	}
	if builtin("/lib/modules/" + kernelRelease() + "/modules.builtin") {
		return true
	}
	return exec.Command("modprobe", "bridge").Run() == nil
}

func kernelRelease() string {
	b, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return strings.TrimSpace(string(b))
}

func builtin(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasSuffix(sc.Text(), "/bridge.ko") {
			return true
		}
	}
	return false
}
