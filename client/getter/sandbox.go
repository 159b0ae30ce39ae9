package getter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// SubCommand is the hidden nomadish command that runs one download in a
// subprocess (cli: `nomadish artifact-fetch`, parameters on stdin).
const SubCommand = "artifact-fetch"

// maxErrOutput bounds what a subprocess's stderr may return as the error.
const maxErrOutput = 4096

// params is what the client sends the subprocess on stdin: not argv, so
// that nothing of it is visible in the process list and no argument is
// ever parsed as a flag.
type params struct {
	Config  Config
	Request Request
}

// fetchInSubprocess runs Get in `<cfg.Executable> artifact-fetch`, as
// Nomad runs go-getter in a sandboxed subprocess: with a minimal
// environment (PATH, TMPDIR in the task's tmp dir, and only the agent's
// variables named in cfg.InheritEnv), in its own process group killed with
// everything it started (git) when ctx ends or the deadline passes. Its
// stderr, bounded, is the error.
func fetchInSubprocess(ctx context.Context, cfg Config, req Request) error {
	ctx, cancel := context.WithTimeout(ctx, cfg.deadline())
	defer cancel()
	sub := cfg
	sub.Executable = ""
	in, err := json.Marshal(params{Config: sub, Request: req})
	if err != nil {
		return err
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, cfg.Executable, SubCommand)
	cmd.Env = subprocessEnv(req.TaskDir, cfg.InheritEnv)
	cmd.Dir = req.TaskDir
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err = cmd.Run()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("artifact download stopped: %w", context.Cause(ctx))
	}
	msg := strings.TrimSpace(out.String())
	if len(msg) > maxErrOutput {
		msg = msg[:maxErrOutput] + "…"
	}
	if msg == "" {
		msg = err.Error()
	}
	return errors.New(msg)
}

// subprocessEnv is the download's environment, sorted.
func subprocessEnv(taskDir string, inherit []string) []string {
	env := map[string]string{
		"PATH":   "/usr/local/bin:/usr/bin:/bin",
		"TMPDIR": filepath.Join(taskDir, "tmp"),
	}
	for _, name := range inherit {
		if v, ok := os.LookupEnv(name); ok {
			env[name] = v
		}
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// RunSubprocess is the body of `nomadish artifact-fetch`: it reads the
// parameters from stdin, downloads in this process and returns the exit
// code, the error on stderr.
func RunSubprocess(stdin io.Reader, stderr io.Writer) int {
	var p params
	if err := json.NewDecoder(io.LimitReader(stdin, 1<<20)).Decode(&p); err != nil {
		fmt.Fprintf(stderr, "artifact-fetch: reading parameters: %v\n", err)
		return 2
	}
	p.Config.Executable = "" // never recurse
	if err := Get(context.Background(), p.Config, p.Request); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
