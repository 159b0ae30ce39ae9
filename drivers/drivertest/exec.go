// Package drivertest holds helpers shared by the driver packages' tests:
// running a command in a task through a driver's ExecTaskStreaming.
package drivertest

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// ExecTimeout bounds one Exec.
const ExecTimeout = 30 * time.Second

// SyncBuffer is a bytes.Buffer safe for a driver's copy goroutines.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Exec runs command in task id through ex with stdin (and a terminal when
// tty) and returns its stdout, stderr and result. An error from the call
// fails the test.
func Exec(t testing.TB, ex base.ExecStreamer, id string, tty bool, stdin string, command ...string) (string, string, *base.ExitResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ExecTimeout)
	defer cancel()
	var out, errOut SyncBuffer
	res, err := ex.ExecTaskStreaming(ctx, id, &base.ExecOptions{Command: command, Tty: tty,
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut})
	if err != nil {
		t.Fatalf("exec %v: %v", command, err)
	}
	return out.String(), errOut.String(), res
}
