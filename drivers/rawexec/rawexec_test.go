package rawexec

import (
	"context"
	"testing"

	"github.com/nomadish/nomadish/drivers/base"
)

func TestFingerprintDisabledUntilEnabled(t *testing.T) {
	d := New(nil)
	fp, err := d.Fingerprint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if fp.Health != base.HealthUndetected || fp.Attributes["driver.raw_exec"] != "" {
		t.Fatalf("default fingerprint = %+v, want undetected without attribute", fp)
	}
	if err := d.SetConfig(map[string]any{"enabled": true}); err != nil {
		t.Fatal(err)
	}
	fp, err = d.Fingerprint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if fp.Health != base.HealthHealthy || fp.Attributes["driver.raw_exec"] != "1" {
		t.Fatalf("enabled fingerprint = %+v", fp)
	}
	if err := d.SetConfig(map[string]any{"enabled": false}); err != nil {
		t.Fatal(err)
	}
	if fp, _ := d.Fingerprint(context.Background()); fp.Health != base.HealthUndetected {
		t.Fatalf("disabled again: %+v", fp)
	}
}
