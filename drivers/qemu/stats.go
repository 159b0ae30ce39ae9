package qemu

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/execdriver"
)

// TaskStats samples qemu's process group (the emulator and its threads:
// the guest's vCPUs and memory are qemu's) every interval (min 100ms)
// until ctx ends or the VM exits.
func (d *Driver) TaskStats(ctx context.Context, taskID string, interval time.Duration) (<-chan *base.TaskResourceUsage, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	s := execdriver.NewGroupSampler(t.state.Pid, t.state.StartedAt)
	return base.StreamUsage(ctx, t.exit.Done(), base.Every(max(interval, 100*time.Millisecond), s.Sample))
}

// socketPoll is how often StartTask looks for qemu's QMP socket.
const socketPoll = 20 * time.Millisecond

// waitSocket returns once qemu has created its QMP socket, or an error with
// qemu's last stderr lines when it exited first (bad arguments, unreadable
// kernel), or after timeout.
func waitSocket(t *task, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(socketPoll)
	defer tick.Stop()
	for {
		if st, err := os.Stat(t.state.QMPSocket); err == nil && st.Mode()&os.ModeSocket != 0 {
			return nil
		}
		select {
		case <-t.exit.Done():
			res, _ := t.exit.Result()
			msg := lastLines(t.cfg.StderrPath, 3)
			if msg == "" {
				msg = "no output"
			}
			return fmt.Errorf("qemu exited at start (exit code %d): %s", res.ExitCode, msg)
		case <-deadline.C:
			return fmt.Errorf("qemu did not open its QMP socket %s within %v", t.state.QMPSocket, timeout)
		case <-tick.C:
		}
	}
}

// lastLines returns the last n non-empty lines of the newest rotated log
// file of base ("" when there is none).
func lastLines(base string, n int) string {
	if base == "" {
		return ""
	}
	matches, _ := filepath.Glob(base + ".*")
	newest, idx := "", -1
	for _, m := range matches {
		if i, err := strconv.Atoi(strings.TrimPrefix(m, base+".")); err == nil && i > idx {
			newest, idx = m, i
		}
	}
	b, err := os.ReadFile(newest)
	if err != nil {
		return ""
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	lines = lines[max(0, len(lines)-n):]
	return strings.Join(lines, "; ")
}
