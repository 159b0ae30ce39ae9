package drivers

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
	"github.com/nomadish/nomadish/drivers/internal/netns/netnstest"
)

// TaskConfig.Network crosses the plugin hop: a raw_exec task started
// through the plugin process runs in the namespace it names.
func TestPluginTaskNetwork(t *testing.T) {
	path, link := netnstest.New(t)
	d, _, _ := launchT(t, "raw_exec")
	if err := d.SetConfig(map[string]any{"enabled": true}); err != nil {
		t.Fatal(err)
	}
	cfg := shTask(t, "readlink /proc/self/ns/net")
	cfg.Network = &base.NetworkIsolation{Path: path}
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	if res := drivertest.WaitExit(t, d, cfg.ID, 20*time.Second); !res.Successful() {
		t.Fatalf("exit %+v", res)
	}
	if got := strings.TrimSpace(drivertest.ReadLog(cfg.StdoutPath)); got != link {
		t.Fatalf("task in %q, want %s", got, link)
	}
}

// A driver that does not manage networks says so over the wire: its
// capability is off and CreateNetwork/DestroyNetwork are ErrNotSupported.
func TestPluginNetworkManagerNotSupported(t *testing.T) {
	d, _, _ := launchT(t, "raw_exec")
	c, err := d.Capabilities()
	if err != nil || c.MustInitiateNetwork {
		t.Fatalf("capabilities %+v, %v", c, err)
	}
	nm, ok := d.(base.NetworkManager)
	if !ok {
		t.Fatal("plugin client is not a NetworkManager")
	}
	if _, _, err := nm.CreateNetwork("a1", &base.NetworkCreateRequest{Hostname: "h"}); !errors.Is(err, base.ErrNotSupported) {
		t.Fatalf("CreateNetwork: %v, want ErrNotSupported", err)
	}
	if err := nm.DestroyNetwork("a1", &base.NetworkIsolation{Path: "/x"}); !errors.Is(err, base.ErrNotSupported) {
		t.Fatalf("DestroyNetwork: %v, want ErrNotSupported", err)
	}
}

// The wire form keeps every field of a namespace, and nil stays nil.
func TestNetworkIsolationRoundTrip(t *testing.T) {
	in := &base.NetworkIsolation{Path: "/proc/7/ns/net", Labels: map[string]string{"docker_sandbox_container_id": "abc"},
		HostsPath: "/a/hosts", ResolvConfPath: "/a/resolv.conf"}
	if out := networkFromPB(networkToPB(in)); !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip %+v, want %+v", out, in)
	}
	if networkFromPB(networkToPB(nil)) != nil {
		t.Fatal("nil became non-nil")
	}
	cfg := &base.TaskConfig{ID: "x", Network: in}
	p, err := taskConfigToPB(cfg)
	if err != nil {
		t.Fatal(err)
	}
	back, err := taskConfigFromPB(p)
	if err != nil || !reflect.DeepEqual(back.Network, in) {
		t.Fatalf("task config network %+v, %v", back.Network, err)
	}
}
