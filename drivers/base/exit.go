package base

import (
	"context"
	"sync"
	"time"
)

// Exit records how a task ended. Each driver's task holds one: the goroutine
// that watches the task calls Set once; WaitTask, InspectTask and stats
// loops read it. Safe for concurrent use.
type Exit struct {
	done chan struct{}
	once sync.Once

	mu     sync.Mutex // guards result, at
	result *ExitResult
	at     time.Time
}

// NewExit returns an Exit for a running task.
func NewExit() *Exit { return &Exit{done: make(chan struct{})} }

// Done is closed once the result is set.
func (e *Exit) Done() <-chan struct{} { return e.done }

// Set records the result and the time now; only the first call counts.
func (e *Exit) Set(res *ExitResult) {
	e.once.Do(func() {
		e.mu.Lock()
		e.result, e.at = res, time.Now()
		e.mu.Unlock()
		close(e.done)
	})
}

// Result returns the result and when it was set; nil while running.
func (e *Exit) Result() (*ExitResult, time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.result, e.at
}

// Wait returns a channel that receives the result once the task has exited,
// then closes; it closes without a value if ctx ends first (the contract of
// Driver.WaitTask).
func (e *Exit) Wait(ctx context.Context) <-chan *ExitResult {
	ch := make(chan *ExitResult, 1)
	go func() {
		defer close(ch)
		select {
		case <-e.done:
			res, _ := e.Result()
			ch <- res
		case <-ctx.Done():
		}
	}()
	return ch
}

// Status completes st, a running task's status (InspectTask), with the
// exit: state exited, the result and when it was set. It returns st.
func (e *Exit) Status(st *TaskStatus) *TaskStatus {
	if res, at := e.Result(); res != nil {
		st.State, st.ExitResult, st.CompletedAt = TaskStateExited, res, at
	}
	return st
}
