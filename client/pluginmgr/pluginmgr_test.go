package pluginmgr_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/pluginmgr"
	"github.com/nomadish/nomadish/drivers/base"
)

type launcher struct {
	mu       sync.Mutex
	launched map[string][]*clienttest.FakePlugin
	fail     map[string]bool
	reject   map[string]error // SetConfig error per driver
	shared   *clienttest.FakeDriver
}

func (l *launcher) launch(name string) (pluginmgr.Plugin, func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail[name] {
		return nil, nil, errors.New("exec format error")
	}
	p := clienttest.NewFakePlugin(name, l.shared)
	if err := l.reject[name]; err != nil {
		p.RejectConfig(err)
	}
	l.launched[name] = append(l.launched[name], p)
	return p, p.Kill, nil
}

func (l *launcher) get(name string) []*clienttest.FakePlugin {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*clienttest.FakePlugin(nil), l.launched[name]...)
}

func TestStartConfiguresAndFingerprints(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &launcher{launched: map[string][]*clienttest.FakePlugin{}, fail: map[string]bool{"exec": true}}
		m := pluginmgr.New(pluginmgr.Config{Launch: l.launch, Drivers: map[string]map[string]any{
			"raw_exec": {"enabled": true}, "exec": nil}})
		m.Start()
		defer m.Shutdown()
		if got := l.get("raw_exec")[0].Config()["enabled"]; got != true {
			t.Fatalf("config enabled = %v", got)
		}
		infos := m.Infos()
		if i := infos["raw_exec"]; !i.Detected || !i.Healthy {
			t.Fatalf("raw_exec info %+v", i)
		}
		if i := infos["exec"]; i.Healthy {
			t.Fatalf("exec info %+v", i)
		}
		attrs := m.Attributes()
		if attrs["driver.raw_exec"] != "1" || attrs["driver.raw_exec.version"] != "0.1" || attrs["driver.exec"] != "" {
			t.Fatalf("attrs %v", attrs)
		}
		if _, err := m.Driver("docker"); !errors.Is(err, pluginmgr.ErrUnknownDriver) {
			t.Fatalf("docker: %v", err)
		}
	})
}

func TestCrashedPluginIsRelaunched(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &launcher{launched: map[string][]*clienttest.FakePlugin{}, shared: clienttest.NewFakeDriver()}
		changes := make(chan struct{}, 10)
		m := pluginmgr.New(pluginmgr.Config{Launch: l.launch, HealthInterval: time.Second,
			Drivers:  map[string]map[string]any{"raw_exec": {"enabled": true}},
			OnChange: func() { changes <- struct{}{} }})
		m.Start()
		defer m.Shutdown()
		drv, err := m.Driver("raw_exec")
		if err != nil {
			t.Fatal(err)
		}
		h, err := drv.StartTask(&base.TaskConfig{ID: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		l.get("raw_exec")[0].Crash()
		<-changes // unhealthy
		<-changes // relaunched
		if n := len(l.get("raw_exec")); n != 2 {
			t.Fatalf("launched %d times", n)
		}
		if i := m.Infos()["raw_exec"]; !i.Healthy {
			t.Fatalf("info after relaunch %+v", i)
		}
		// The proxy talks to the new process; the task survived.
		if err := drv.RecoverTask(h); err != nil {
			t.Fatal(err)
		}
	})
}

func TestProxyFailsWhilePluginDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &launcher{launched: map[string][]*clienttest.FakePlugin{}, fail: map[string]bool{"raw_exec": true}}
		m := pluginmgr.New(pluginmgr.Config{Launch: l.launch, Drivers: map[string]map[string]any{"raw_exec": nil}})
		m.Start()
		defer m.Shutdown()
		drv, _ := m.Driver("raw_exec")
		if _, err := drv.StartTask(&base.TaskConfig{ID: "x"}); !errors.Is(err, base.ErrPluginShutdown) {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestInvalidConfigIsUnhealthyNotRetried: a plugin that rejects its config
// (plugin "raw_exec" { config { volumes = true } }) is an unhealthy driver
// whose description says why, is launched once and never again, and task
// starts get the config error.
func TestInvalidConfigIsUnhealthyNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &launcher{launched: map[string][]*clienttest.FakePlugin{},
			reject: map[string]error{"raw_exec": errors.New(`raw_exec plugin config: unknown key "volumes"`)}}
		m := pluginmgr.New(pluginmgr.Config{Launch: l.launch, HealthInterval: time.Second,
			Drivers: map[string]map[string]any{"raw_exec": {"enabled": true, "volumes": true}, "exec": nil}})
		m.Start()
		defer m.Shutdown()
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if n := len(l.get("raw_exec")); n != 1 {
			t.Fatalf("raw_exec launched %d times, want once", n)
		}
		i := m.Infos()["raw_exec"]
		if !i.Detected || i.Healthy || !strings.Contains(i.HealthDescription, `unknown key "volumes"`) ||
			!strings.Contains(i.HealthDescription, "invalid plugin config") {
			t.Fatalf("raw_exec info %+v", i)
		}
		if !m.Infos()["exec"].Healthy || m.Attributes()["driver.raw_exec"] != "" {
			t.Fatalf("infos %+v attrs %v", m.Infos(), m.Attributes())
		}
		drv, _ := m.Driver("raw_exec")
		if _, err := drv.StartTask(&base.TaskConfig{ID: "x"}); !errors.Is(err, pluginmgr.ErrInvalidConfig) {
			t.Fatalf("start on a misconfigured driver: %v", err)
		}
	})
}

// TestShutdownStopsRelaunchBackoff: a plugin that keeps failing to launch
// is retried with backoff; Shutdown ends the wait at once.
func TestShutdownStopsRelaunchBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &launcher{launched: map[string][]*clienttest.FakePlugin{}, fail: map[string]bool{"raw_exec": true}}
		m := pluginmgr.New(pluginmgr.Config{Launch: l.launch, HealthInterval: time.Second,
			Drivers: map[string]map[string]any{"raw_exec": nil}})
		m.Start()
		time.Sleep(time.Minute) // several relaunches; backoff now 30s
		synctest.Wait()
		start := time.Now()
		m.Shutdown()
		if el := time.Since(start); el != 0 {
			t.Fatalf("Shutdown waited %v", el)
		}
	})
}
