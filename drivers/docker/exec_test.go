package docker_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
)

// dockerExec runs command in task id and returns stdout, stderr, result.
func dockerExec(t *testing.T, d base.Driver, id string, tty bool, stdin string, command ...string) (string, string, *base.ExitResult) {
	t.Helper()
	ex, ok := d.(base.ExecStreamer)
	if !ok {
		t.Fatalf("%T is not an ExecStreamer", d)
	}
	return drivertest.Exec(t, ex, id, tty, stdin, command...)
}

// exec in a running container: output, exit code, stdin, tty, errors.
func TestExecTaskStreaming(t *testing.T) {
	d := newDriver(t)
	if c, _ := d.Capabilities(); !c.Exec {
		t.Fatal("Capabilities().Exec is false")
	}
	cfg := shTask(t, "echo ready; while :; do sleep 0.1; done")
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })

	out, errOut, res := dockerExec(t, d, cfg.ID, false, "", "sh", "-c", `echo hi; echo "$GREETING" >&2; exit 3`)
	if out != "hi\n" || errOut != "hi\n" || res.ExitCode != 3 {
		t.Fatalf("exec: stdout %q stderr %q result %+v", out, errOut, res)
	}
	if out, _, res := dockerExec(t, d, cfg.ID, false, "one\ntwo\n", "cat"); out != "one\ntwo\n" || res.ExitCode != 0 {
		t.Fatalf("stdin to cat: %q %+v", out, res)
	}
	if out, _, _ := dockerExec(t, d, cfg.ID, false, "", "sh", "-c", "test -t 0 || echo no-tty"); out != "no-tty\n" {
		t.Fatalf("without tty: %q", out)
	}
	out, _, res = dockerExec(t, d, cfg.ID, true, "", "sh", "-c", "test -t 0 && echo is-tty; exit 4")
	if !strings.Contains(out, "is-tty") || res.ExitCode != 4 {
		t.Fatalf("tty: %q %+v", out, res)
	}
	if out, _, res := dockerExec(t, d, cfg.ID, true, "ping\n", "cat"); strings.Count(out, "ping") != 2 || res.ExitCode != 0 {
		t.Fatalf("tty stdin to cat: %q %+v", out, res)
	}

	ex := d.(base.ExecStreamer)
	if _, err := ex.ExecTaskStreaming(context.Background(), "nope", &base.ExecOptions{Command: []string{"true"}}); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("unknown task: %v", err)
	}
	if _, err := ex.ExecTaskStreaming(context.Background(), cfg.ID, &base.ExecOptions{}); err == nil {
		t.Fatal("no command: no error")
	}
	if err := d.StopTask(cfg.ID, time.Second, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := ex.ExecTaskStreaming(context.Background(), cfg.ID, &base.ExecOptions{Command: []string{"true"}}); err == nil {
		t.Fatal("exec in a stopped task: no error")
	}
}
