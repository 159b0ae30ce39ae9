package base

import (
	"fmt"
	"strings"
	"syscall"
)

var signals = map[string]syscall.Signal{
	"SIGABRT": syscall.SIGABRT, "SIGALRM": syscall.SIGALRM, "SIGCONT": syscall.SIGCONT,
	"SIGHUP": syscall.SIGHUP, "SIGINT": syscall.SIGINT, "SIGKILL": syscall.SIGKILL,
	"SIGQUIT": syscall.SIGQUIT, "SIGSTOP": syscall.SIGSTOP, "SIGTERM": syscall.SIGTERM,
	"SIGUSR1": syscall.SIGUSR1, "SIGUSR2": syscall.SIGUSR2, "SIGWINCH": syscall.SIGWINCH,
	"SIGTSTP": syscall.SIGTSTP, "SIGTTIN": syscall.SIGTTIN, "SIGTTOU": syscall.SIGTTOU,
	"SIGPIPE": syscall.SIGPIPE,
}

// ParseSignal turns "SIGTERM", "TERM" or "sigterm" into a signal. An empty
// name gives def.
func ParseSignal(name string, def syscall.Signal) (syscall.Signal, error) {
	if name == "" {
		return def, nil
	}
	n := strings.ToUpper(strings.TrimSpace(name))
	if !strings.HasPrefix(n, "SIG") {
		n = "SIG" + n
	}
	if s, ok := signals[n]; ok {
		return s, nil
	}
	return 0, fmt.Errorf("drivers: unknown signal %q", name)
}
