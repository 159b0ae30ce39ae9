package drivers

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
)

// ExecTaskStreaming crosses the plugin's gRPC hop: output, stdin, exit
// code, tty, and errors.Is for an unknown task.
func TestPluginExecTask(t *testing.T) {
	d, _, _ := launchT(t, "raw_exec")
	if err := d.SetConfig(map[string]any{"enabled": true}); err != nil {
		t.Fatal(err)
	}
	if c, err := d.Capabilities(); err != nil || !c.Exec {
		t.Fatalf("capabilities %+v, %v", c, err)
	}
	ex, ok := d.(base.ExecStreamer)
	if !ok {
		t.Fatal("plugin client is not an ExecStreamer")
	}
	cfg := shTask(t, "echo ready; while :; do sleep 0.05; done")
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	waitForLog(t, cfg.StdoutPath, "ready")

	run := func(tty bool, stdin string, cmd ...string) (string, string, *base.ExitResult) {
		t.Helper()
		return drivertest.Exec(t, ex, cfg.ID, tty, stdin, cmd...)
	}
	if out, errOut, res := run(false, "", "sh", "-c", "echo hi; echo e >&2; exit 3"); out != "hi\n" || errOut != "e\n" || res.ExitCode != 3 {
		t.Fatalf("exec: %q %q %+v", out, errOut, res)
	}
	big := strings.Repeat("0123456789abcdef", 8<<10) + "\n" // 128 KiB: several chunks each way
	if out, _, res := run(false, big, "cat"); out != big || res.ExitCode != 0 {
		t.Fatalf("cat of %d bytes: got %d bytes, %+v", len(big), len(out), res)
	}
	if out, _, res := run(true, "", "sh", "-c", "test -t 0 && echo tty"); !strings.Contains(out, "tty") || res.ExitCode != 0 {
		t.Fatalf("tty: %q %+v", out, res)
	}
	_, err := ex.ExecTaskStreaming(context.Background(), "nope", &base.ExecOptions{Command: []string{"true"}})
	if !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("unknown task: %v", err)
	}
}
