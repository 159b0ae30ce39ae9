package exec

import (
	"context"
	"os"
	"testing"

	"github.com/nomadish/nomadish/drivers/base"
)

func TestEnabledByDefaultAsRoot(t *testing.T) {
	d := New(nil)
	fp, err := d.Fingerprint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wantHealthy := os.Geteuid() == 0
	if (fp.Health == base.HealthHealthy) != wantHealthy {
		t.Fatalf("fingerprint = %+v, root=%v", fp, wantHealthy)
	}
	if wantHealthy && fp.Attributes["driver.exec"] != "1" {
		t.Fatalf("attributes = %v", fp.Attributes)
	}
	caps, err := d.Capabilities()
	if err != nil || !caps.SendSignals || caps.FSIsolation != base.FSIsolationNone {
		t.Fatalf("capabilities = %+v, %v", caps, err)
	}
	if err := d.SetConfig(map[string]any{"allow_caps": []any{"chown"}}); err != nil {
		t.Fatalf("Nomad exec plugin key rejected: %v", err)
	}
}
