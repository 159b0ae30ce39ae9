package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// runMarkerEnv is set (to runID) in the environment of every agent this test
// binary starts. Driver plugins inherit it (the agent strips only NOMAD_*,
// NOMADISH_* and credentials); tasks do not (their environment is built by
// the client), so tasks are recognised by their directories instead.
const runMarkerEnv = "E2E_RUN_ID"

var (
	// runID tells this test binary's processes from those of other runs on
	// the same machine.
	runID = newRunID()

	agentDirsMu sync.Mutex
	// agentDirs are the directories of every agent started (agent.hcl and
	// the data dir under them); a task's cwd and NOMAD_*_DIR are below one.
	agentDirs []string
)

func newRunID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// agentCommand is the command of an agent whose config and data live in
// dir: own process group, the run marker in its environment, dir recorded
// for the leftover check at the end of TestMain.
func agentCommand(dir string, argv ...string) *exec.Cmd {
	agentDirsMu.Lock()
	agentDirs = append(agentDirs, dir)
	agentDirsMu.Unlock()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), runMarkerEnv+"="+runID)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// agentsDir returns a new temp dir for the agents a test starts. Its
// cleanup runs after the cleanups registered later (those that stop the
// agents): it kills whatever still runs from the dir, such as the tasks of
// a SIGKILLed client or of a client stopped with its jobs still running
// (a client leaves its tasks running when it stops, to re-attach later).
func agentsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() {
		if left := killLeftovers("", []string{dir}); len(left) > 0 {
			t.Logf("killed %d processes left running from %s:\n%s", len(left), dir, strings.Join(left, "\n"))
		}
	})
	return dir
}

// killLeftovers SIGKILLs, until none is left (10 s at most), the processes
// other than this one that carry marker (when not "") in their environment
// or name a path under one of dirs in their cwd, command line or
// environment. It returns them as "pid: command line".
func killLeftovers(marker string, dirs []string) []string {
	seen := map[int]string{}
	var order []int
	deadline := time.Now().Add(10 * time.Second)
	for {
		found := leftoverProcs(marker, dirs)
		for pid, cmdline := range found {
			if _, ok := seen[pid]; !ok {
				seen[pid] = cmdline
				order = append(order, pid)
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if len(found) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond) // a killed shell's child may fork on
	}
	out := make([]string, len(order))
	for i, pid := range order {
		out[i] = fmt.Sprintf("%d: %s", pid, seen[pid])
	}
	return out
}

// leftoverProcs scans /proc for the processes killLeftovers kills: pid ->
// command line. Zombies are left out (nothing to kill; their parent reaps).
func leftoverProcs(marker string, dirs []string) map[int]string {
	self := os.Getpid()
	out := map[int]string{}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil || pid == self || !alive(pid) {
			continue
		}
		env, _ := os.ReadFile(p + "/environ")
		cmdline, _ := os.ReadFile(p + "/cmdline")
		cwd, _ := os.Readlink(p + "/cwd")
		match := marker != "" && bytes.Contains(append([]byte{0}, env...), []byte("\x00"+runMarkerEnv+"="+marker+"\x00"))
		for _, d := range dirs {
			if match {
				break
			}
			match = cwd == d || strings.HasPrefix(cwd, d+"/") ||
				bytes.Contains(env, []byte("="+d+"/")) || bytes.Contains(cmdline, []byte(d+"/"))
		}
		if match {
			out[pid] = strings.TrimSpace(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// checkLeftovers is the end of TestMain: every agent has been stopped, so
// any process of this run still alive (an agent, a plugin, a task, a VM)
// outlived the test that started it. They are killed and listed; a non-nil
// error fails the run.
func checkLeftovers(root string) error {
	agentDirsMu.Lock()
	dirs := append([]string{root}, agentDirs...)
	agentDirsMu.Unlock()
	// The plugins of an agent a test SIGKILLed notice within their parent
	// poll interval (500 ms) and exit on their own: give them a few before
	// calling anything a leftover.
	for deadline := time.Now().Add(3 * time.Second); len(leftoverProcs(runID, dirs)) > 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	left := killLeftovers(runID, dirs)
	if len(left) == 0 {
		return nil
	}
	return fmt.Errorf("%d processes started by the tests outlived them (killed now):\n%s", len(left), strings.Join(left, "\n"))
}
