package drivers

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a strings.Builder safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

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
	ex, ok := d.(ExecStreamer)
	if !ok {
		t.Fatal("plugin client is not an ExecStreamer")
	}
	cfg := shTask(t, "echo ready; while :; do sleep 0.05; done")
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	waitForLog(t, cfg.StdoutPath, "ready")

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	run := func(tty bool, stdin string, cmd ...string) (string, string, *ExitResult) {
		t.Helper()
		var out, errOut lockedBuffer
		res, err := ex.ExecTaskStreaming(ctx, cfg.ID, &ExecOptions{Command: cmd, Tty: tty,
			Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut})
		if err != nil {
			t.Fatalf("exec %v: %v", cmd, err)
		}
		return out.String(), errOut.String(), res
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
	_, err := ex.ExecTaskStreaming(ctx, "nope", &ExecOptions{Command: []string{"true"}})
	if !errors.Is(err, ErrTaskNotFound) {
		t.Fatalf("unknown task: %v", err)
	}
}
