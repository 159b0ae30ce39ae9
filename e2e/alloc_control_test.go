package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// memUsed matches the memory cell of `alloc status -stats`: "4.0 MiB/32 MiB".
var memUsed = regexp.MustCompile(`(\d+(?:\.\d)? [KMGT]?i?B)/32 MiB`)

// TestAllocControl drives a running raw_exec service task with the CLI:
// alloc signal reaches the task's trap, alloc restart runs it again as a new
// process while the alloc keeps running, alloc status -stats shows its
// memory, and alloc stop replaces the allocation.
func TestAllocControl(t *testing.T) {
	id := uniqueID("e2e-allocctl")
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "task.pid")
	script := "echo $$ > " + pidFile + "; trap 'echo got-usr1' USR1; echo started; while true; do sleep 0.1; done"
	job := rawExecJob(id, "service", "/bin/sh", []string{"-c", script}, 32)
	if r := nomadish(t, "job", "run", writeFile(t, "allocctl.nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	alloc := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })[0].ID
	pid := readPid(t, pidFile)
	t.Cleanup(func() { killPidFile(pidFile) })

	// signal
	if r := nomadish(t, "alloc", "signal", "-s", "SIGUSR1", alloc[:8], "t"); r.code != 0 || r.out != "" {
		t.Fatalf("alloc signal: %v", r)
	}
	eventually(t, 10*time.Second, "the trap to log the signal", func() (bool, string) {
		r := nomadish(t, "alloc", "logs", alloc, "t")
		return strings.Contains(r.out, "got-usr1"), r.String()
	})
	for _, tc := range []struct{ args, want string }{
		{"-s SIGNOPE", "400"}, {"-s SIGUSR1 -task nope", "404"},
	} {
		args := append(append([]string{"alloc", "signal"}, strings.Fields(tc.args)...), alloc)
		if r := nomadish(t, args...); r.code != 1 || !strings.Contains(r.errOut, tc.want) {
			t.Errorf("alloc signal %s: %v, want an error with %s", tc.args, r, tc.want)
		}
	}

	// restart
	if r := nomadish(t, "alloc", "restart", alloc); r.code != 0 {
		t.Fatalf("alloc restart: %v", r)
	}
	eventually(t, 15*time.Second, "a new task process", func() (bool, string) {
		b, _ := os.ReadFile(pidFile)
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return n > 0 && n != pid && syscall.Kill(pid, 0) != nil, fmt.Sprintf("pid file %q, old pid %d", b, pid)
	})
	// The new process can run before the client's task state update
	// (restart event, count) reaches the server: wait for it.
	eventually(t, 15*time.Second, "the restart in alloc status", func() (bool, string) {
		r := nomadish(t, "alloc", "status", alloc)
		return r.code == 0 && strings.Contains(r.out, "Restart Signaled") && strings.Contains(r.out, "User requested running tasks to restart") &&
			regexp.MustCompile(`Client Status\s+=\s+running`).MatchString(r.out) && regexp.MustCompile(`Total Restarts\s+=\s+1`).MatchString(r.out), r.String()
	})

	// stats
	eventually(t, 10*time.Second, "non-zero memory in alloc status -stats", func() (bool, string) {
		r := nomadish(t, "alloc", "status", "-stats", alloc)
		m := memUsed.FindStringSubmatch(r.out)
		return r.code == 0 && m != nil && m[1] != "0 B" && strings.Contains(r.out, "/100 MHz"), r.String()
	})

	// stop
	r := nomadish(t, "alloc", "stop", alloc[:8])
	if r.code != 0 || !strings.Contains(r.out, `==> Monitoring evaluation "`) || !createdAlloc.MatchString(r.out) {
		t.Fatalf("alloc stop: %v", r)
	}
	waitAllocs(t, id, 2, "stopped and replaced", func(a allocRow) bool {
		if a.ID == alloc {
			return a.DesiredStatus == "stop" && a.ClientStatus == "complete"
		}
		return a.DesiredStatus == "run" && a.ClientStatus == "running"
	})
}

// killPidFile SIGKILLs the process whose pid the task wrote, so a failed
// test leaves nothing running.
func killPidFile(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
		_ = syscall.Kill(n, syscall.SIGKILL)
	}
}
