package network

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
// Plugins that print neither are left out. The plugins run all at once:
// one after the other, Debian's sixteen took 66 ms of the agent's start
// (a plugin is a Go binary that starts its runtime to print two lines).
// The caller owns the map.
func (c Config) PluginVersions(ctx context.Context) map[string]string {
	paths := map[string]string{} // plugin name -> its first path in cni_path
	for _, dir := range c.WithDefaults().pluginDirs() {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if _, done := paths[e.Name()]; done || e.IsDir() {
				continue
			}
			if fi, err := e.Info(); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
				continue
			}
			paths[e.Name()] = filepath.Join(dir, e.Name())
		}
	}
	vctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	out := make(map[string]string, len(paths))
	for name, path := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.CommandContext(vctx, path)
			cmd.Env = []string{} // no CNI_COMMAND: the plugin prints its about text
			buf, _ := cmd.CombinedOutput()
			if v := ParsePluginVersion(string(buf)); v != "" {
				mu.Lock()
				out[name] = v
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
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
	if why := c.MissingBridgePlugin(); why != "" {
		return false, why
	}
	if !bridgeModule() {
		return false, "the bridge kernel module is not loaded and cannot be loaded"
	}
	return true, ""
}

// MissingBridgePlugin names the first of BridgePlugins not in the
// cni_path ("" when all are there).
func (c Config) MissingBridgePlugin() string {
	for _, p := range BridgePlugins {
		if c.FindPlugin(p) == "" {
			return "CNI plugin " + p + " not in cni_path " + c.WithDefaults().CNIPath
		}
	}
	return ""
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
