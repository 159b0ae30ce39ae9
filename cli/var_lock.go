package cli

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// varLockCommand is `var lock [-ttl D] [-delay D] [-max-retry N] [-shell]
// PATH [COMMAND ARGS...]`, as Nomad's: acquire the lock on the variable at
// PATH (retrying while another holder has it, up to -max-retry times),
// run the command while renewing the lock every TTL/2, release it when
// the command exits and exit with its code. A lost lock stops the command
// and exits 1. Without a command it holds the lock until interrupted.
func varLockCommand(m *Meta, args []string) int {
	f := m.newFlags("var lock", "[options] PATH [COMMAND [ARGS...]]")
	ttl := f.Duration("ttl", structs.DefaultVarLockTTL, "the lock's time to live")
	delay := f.Duration("delay", structs.DefaultVarLockDelay, "the lock delay after a lost lock")
	maxRetry := f.Int("max-retry", 5, "how many times to try acquiring a held lock (0: forever)")
	retryWait := f.Duration("retry-wait", 2*time.Second, "wait between acquire attempts")
	shell := f.Bool("shell", false, "run COMMAND through /bin/sh -c")
	if code, ok := m.parseLeading(f, args); !ok {
		return code
	}
	pos := f.Args()
	if len(pos) < 1 {
		return m.wrongArgs(f, "a variable path, then the command to run")
	}
	c := m.client(f)
	v := &structs.VariableDecrypted{VariableMetadata: structs.VariableMetadata{Path: pos[0],
		Lock: &structs.VariableLock{TTL: *ttl, LockDelay: *delay}}}
	if ns := m.apiOption(f, "namespace"); ns != "" {
		v.Namespace = ns
	}
	held, err := acquireVarLock(c, v, *maxRetry, *retryWait)
	if err != nil {
		return m.errorf("acquiring lock on %q: %v", v.Path, err)
	}
	release := func() {
		held.Items = nil
		if _, err := c.varPut(held, url.Values{"lock-release": {""}}); err != nil {
			fmt.Fprintf(m.Err, "Error releasing lock on %q: %v\n", held.Path, err)
		}
	}
	defer release()
	var cmd *exec.Cmd
	switch {
	case len(pos) == 1:
	case *shell:
		cmd = exec.Command("/bin/sh", "-c", joinArgs(pos[1:]))
	default:
		cmd = exec.Command(pos[1], pos[2:]...)
	}
	return holdVarLock(m, c, held, cmd, *ttl)
}

// acquireVarLock tries lock-acquire until it succeeds, a non-conflict
// error occurs or maxRetry conflicts (0: no limit) happened.
func acquireVarLock(c *apiClient, v *structs.VariableDecrypted, maxRetry int, wait time.Duration) (*structs.VariableDecrypted, error) {
	for attempt := 1; ; attempt++ {
		held, err := c.varPut(v, url.Values{"lock-acquire": {""}})
		if err == nil {
			if held.Lock == nil || held.Lock.ID == "" {
				return nil, errors.New("the server answered without a lock ID")
			}
			return held, nil
		}
		var ce *casConflict
		if !errors.As(err, &ce) {
			return nil, err
		}
		if maxRetry > 0 && attempt >= maxRetry {
			return nil, fmt.Errorf("the lock is held by another holder (gave up after %d attempts)", attempt)
		}
		time.Sleep(wait)
	}
}

// holdVarLock runs cmd (nil: wait for an interrupt) while renewing the
// lock every ttl/2; it returns the command's exit code, or 1 when the lock
// is lost (the command is killed then).
func holdVarLock(m *Meta, c *apiClient, held *structs.VariableDecrypted, cmd *exec.Cmd, ttl time.Duration) int {
	done := make(chan int, 1)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if cmd != nil {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, m.Out, m.Err
		if err := cmd.Start(); err != nil {
			return m.errorf("starting command: %v", err)
		}
		go func() {
			err := cmd.Wait()
			var ee *exec.ExitError
			switch {
			case err == nil:
				done <- exitOK
			case errors.As(err, &ee) && ee.ExitCode() >= 0:
				done <- ee.ExitCode()
			default:
				done <- exitError
			}
		}()
	}
	renew := time.NewTicker(ttl / 2)
	defer renew.Stop()
	for {
		select {
		case code := <-done:
			return code
		case s := <-sigs:
			if cmd == nil {
				return exitOK
			}
			_ = cmd.Process.Signal(s)
		case <-renew.C:
			renewed := *held
			renewed.Items = nil
			if _, err := c.varPut(&renewed, url.Values{"lock-renew": {""}}); err != nil {
				fmt.Fprintf(m.Err, "Error renewing lock on %q: %v; stopping\n", held.Path, err)
				if cmd != nil {
					_ = cmd.Process.Kill()
					<-done
				}
				return exitError
			}
		}
	}
}

// joinArgs joins a shell command's words with spaces.
func joinArgs(a []string) string {
	s := ""
	for i, w := range a {
		if i > 0 {
			s += " "
		}
		s += w
	}
	return s
}
