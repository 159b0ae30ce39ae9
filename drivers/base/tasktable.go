package base

import (
	"context"
	"fmt"
	"sync"
	"syscall"
)

// Table is a driver's tasks by task ID, and the front of the Driver methods
// that only look a task up (WaitTask, StopTask, DestroyTask). T is the
// driver's own task type; the table holds *T. An ID may be reserved (held
// with no task) while its task starts: Get then answers ErrTaskNotFound, Add
// and Reserve ErrTaskExists. Safe for concurrent use.
type Table[T any] struct {
	exit func(*T) *Exit // the task's exit record, for Wait, Stop and Destroy

	mu    sync.Mutex    // guards tasks
	tasks map[string]*T // nil value: ID reserved while starting
}

// NewTable returns an empty table; exit returns a task's Exit.
func NewTable[T any](exit func(*T) *Exit) *Table[T] {
	return &Table[T]{exit: exit, tasks: map[string]*T{}}
}

func errExists(id string) error   { return fmt.Errorf("task %q: %w", id, ErrTaskExists) }
func errNotFound(id string) error { return fmt.Errorf("task %q: %w", id, ErrTaskNotFound) }

// Get returns the task; a missing or still-starting one is an error
// wrapping ErrTaskNotFound (`task "<id>": drivers: task not found`).
func (tb *Table[T]) Get(id string) (*T, error) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if t := tb.tasks[id]; t != nil {
		return t, nil
	}
	return nil, errNotFound(id)
}

// Add registers t under id; an ID already held (by a task or a
// reservation) is an error wrapping ErrTaskExists and leaves the table
// unchanged.
func (tb *Table[T]) Add(id string, t *T) error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if _, ok := tb.tasks[id]; ok {
		return errExists(id)
	}
	tb.tasks[id] = t
	return nil
}

// AddNew registers the task build returns under id unless id is already
// held, and reports whether it did. build runs under the table's lock, only
// when id is free (RecoverTask: re-attaching to a task twice is a no-op).
func (tb *Table[T]) AddNew(id string, build func() *T) bool {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if _, ok := tb.tasks[id]; ok {
		return false
	}
	tb.tasks[id] = build()
	return true
}

// Start reserves id (an error wrapping ErrTaskExists when held), runs start
// without the lock, then registers the task it returns, or frees id and
// returns start's error unchanged.
func (tb *Table[T]) Start(id string, start func() (*T, error)) (*T, error) {
	if err := tb.Add(id, nil); err != nil {
		return nil, err
	}
	t, err := start()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if err != nil {
		delete(tb.tasks, id)
		return nil, err
	}
	tb.tasks[id] = t
	return t, nil
}

// Delete forgets id (a no-op when absent).
func (tb *Table[T]) Delete(id string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	delete(tb.tasks, id)
}

// List returns the registered tasks (not reservations) in no order; the
// caller owns the slice.
func (tb *Table[T]) List() []*T {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	out := make([]*T, 0, len(tb.tasks))
	for _, t := range tb.tasks {
		if t != nil {
			out = append(out, t)
		}
	}
	return out
}

// Wait is Driver.WaitTask: the task's exit as Exit.Wait gives it.
func (tb *Table[T]) Wait(ctx context.Context, id string) (<-chan *ExitResult, error) {
	t, err := tb.Get(id)
	if err != nil {
		return nil, err
	}
	return tb.exit(t).Wait(ctx), nil
}

// Stop is the front of Driver.StopTask: it looks the task up, parses
// signal (SIGTERM when empty) and returns stop's answer; stop does the
// driver's own signal-wait-kill.
func (tb *Table[T]) Stop(id, signal string, stop func(t *T, sig syscall.Signal) error) error {
	t, err := tb.Get(id)
	if err != nil {
		return err
	}
	sig, err := ParseSignal(signal, syscall.SIGTERM)
	if err != nil {
		return err
	}
	return stop(t, sig)
}

// Destroy is the frame of Driver.DestroyTask: a task still running is an
// error wrapping ErrTaskRunning unless force, when kill (which returns once
// the task has exited, or with an error that ends Destroy) runs first; then
// release (nil: nothing to free) frees the driver's resources and, when it
// succeeds, the task is forgotten.
func (tb *Table[T]) Destroy(id string, force bool, kill, release func(*T) error) error {
	t, err := tb.Get(id)
	if err != nil {
		return err
	}
	select {
	case <-tb.exit(t).Done():
	default:
		if !force {
			return fmt.Errorf("task %q: %w", id, ErrTaskRunning)
		}
		if err := kill(t); err != nil {
			return err
		}
	}
	if release != nil {
		if err := release(t); err != nil {
			return err
		}
	}
	tb.Delete(id)
	return nil
}
