package execdriver

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// The exec driver's task init. Go cannot run code between fork and exec, so
// the driver starts its own binary as `<exe> plugin exec-init` in new PID
// and mount namespaces, inside the task's cgroups (isolate.go). That process
// is PID 1 of the namespace: it reads an initSpec from fd 3, sets up the
// mounts (mounts.go), becomes the task's user in the task dir, starts the
// task's command as its only child, forwards signals to it, reaps every
// zombie of the namespace and exits with the child's status. It reports on fd 4,
// one JSON initReport per line: {"Started":true} or {"Error":...} once the
// setup is done, then {"Exited":true,...} with the child's real status (the
// driver cannot see it otherwise: a signal that killed the child comes back
// from the init as exit code 128+signal).

// InitArgs are the arguments after the executable that start the task init.
// The nomadish binary routes them from cli/plugin.go; a test binary that
// starts exec tasks routes them from its TestMain (IsInit, RunInit).
var InitArgs = []string{"plugin", "exec-init"}

// Fds of the init's two pipes (cmd.ExtraFiles[0] and [1]).
const (
	initSpecFd   = 3
	initReportFd = 4
)

// initSpec is what the driver tells the init (JSON on fd 3).
type initSpec struct {
	Path string   // absolute path of the command
	Args []string // argv, Args[0] included
	Env  []string
	Dir  string // working directory (the task dir)
	UID  uint32
	GID  uint32
	// Groups are the user's supplementary groups.
	Groups []uint32
	// Writable are bind-mounted read-write onto themselves; every other
	// mount becomes read-only.
	Writable []string
	// Mounts are the host volumes bound inside the task dir (volumes.go).
	Mounts []bindMount `json:",omitempty"`
}

// initReport is one line the init writes on fd 4.
type initReport struct {
	Started  bool   `json:",omitempty"`
	Error    string `json:",omitempty"`
	Exited   bool   `json:",omitempty"`
	ExitCode int    `json:",omitempty"`
	Signal   int    `json:",omitempty"`
}

// IsInit reports whether args (os.Args) start the exec driver's task init.
func IsInit(args []string) bool {
	return len(args) == 3 && args[1] == InitArgs[0] && args[2] == InitArgs[1]
}

// RunInit is the whole task init; it returns the process exit code: the
// child's exit code, 128+signal when a signal killed it, 127 when the setup
// failed. Only the exec driver starts it (fds 3 and 4 are its pipes).
func RunInit() int {
	// Handlers first: PID 1 of a namespace drops signals it has none for.
	sigs := make(chan os.Signal, 32)
	signal.Notify(sigs, forwardedSignals()...)

	report := os.NewFile(initReportFd, "init-report")
	syscall.CloseOnExec(initReportFd)
	enc := json.NewEncoder(report)
	fail := func(err error) int {
		_ = enc.Encode(initReport{Error: err.Error()})
		return 127
	}
	spec, err := readInitSpec()
	if err != nil {
		return fail(err)
	}
	if err := setupMounts(spec.Writable, spec.Mounts); err != nil {
		return fail(err)
	}
	if err := dropToUser(spec); err != nil {
		return fail(err)
	}
	pid, err := syscall.ForkExec(spec.Path, spec.Args, &syscall.ProcAttr{
		Env: spec.Env, Files: []uintptr{0, 1, 2},
	})
	if err != nil {
		return fail(fmt.Errorf("starting %s: %w", spec.Path, err))
	}
	_ = enc.Encode(initReport{Started: true})
	go forwardSignals(sigs, pid)
	ws := reapUntil(pid)
	res := initReport{Exited: true, ExitCode: ws.ExitStatus()}
	if ws.Signaled() {
		res.Signal = int(ws.Signal())
		res.ExitCode = 128 + res.Signal
	}
	_ = enc.Encode(res) // fails harmlessly (EPIPE) when the plugin is gone
	return res.ExitCode
}

// dropToUser makes the init (every thread: Go's Setuid is process-wide)
// the task's user and moves it into the task dir, so that the command, and
// whatever later joins the task through /proc/<init pid> (alloc exec reads
// the user and working directory there), runs as the task.
func dropToUser(spec *initSpec) error {
	groups := make([]int, len(spec.Groups))
	for i, g := range spec.Groups {
		groups[i] = int(g)
	}
	if err := syscall.Setgroups(groups); err != nil {
		return fmt.Errorf("setting groups: %w", err)
	}
	if err := syscall.Setgid(int(spec.GID)); err != nil {
		return fmt.Errorf("setting gid %d: %w", spec.GID, err)
	}
	if err := syscall.Setuid(int(spec.UID)); err != nil {
		return fmt.Errorf("setting uid %d: %w", spec.UID, err)
	}
	if err := os.Chdir(spec.Dir); err != nil {
		return fmt.Errorf("entering the task dir: %w", err)
	}
	return nil
}

// readInitSpec reads the JSON spec from fd 3 and closes it.
func readInitSpec() (*initSpec, error) {
	f := os.NewFile(initSpecFd, "init-spec")
	if f == nil {
		return nil, errors.New("exec init: no spec fd (started by hand?)")
	}
	defer f.Close()
	var spec initSpec
	if err := json.NewDecoder(bufio.NewReader(f)).Decode(&spec); err != nil {
		return nil, fmt.Errorf("exec init: reading spec: %w", err)
	}
	return &spec, nil
}

// forwardedSignals are the catchable signals the init passes on: all but
// SIGCHLD (its own business), SIGURG (Go's preemption) and SIGPIPE (its
// own writes to a gone plugin).
func forwardedSignals() []os.Signal {
	var out []os.Signal
	for s := syscall.Signal(1); s < 32; s++ {
		switch s {
		case syscall.SIGKILL, syscall.SIGSTOP, syscall.SIGCHLD, syscall.SIGURG, syscall.SIGPIPE:
			continue
		}
		out = append(out, s)
	}
	return out
}

// forwardSignals sends every signal the init receives to the child. It
// runs until the process exits.
func forwardSignals(sigs <-chan os.Signal, pid int) {
	for s := range sigs {
		if sig, ok := s.(syscall.Signal); ok {
			_ = syscall.Kill(pid, sig)
		}
	}
}

// reapUntil waits for any child of the namespace (orphans are reparented
// to the init) until pid exits, and returns pid's status.
func reapUntil(pid int) syscall.WaitStatus {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil { // ECHILD: cannot happen while pid is unreaped
			return ws
		}
		if got == pid && (ws.Exited() || ws.Signaled()) {
			return ws
		}
	}
}
