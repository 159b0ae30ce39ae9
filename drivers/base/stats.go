package base

import (
	"context"
	"time"
)

// A UsageSource is how a driver reads one task's resource usage for
// StreamUsage. It is opened once per Driver.TaskStats call with a context
// that ends when the caller's does or the task exits (a stream bound to it
// then stops). It returns next, which blocks until the next sample is due
// and returns it (false: no more samples), and close (may be nil), called
// once when the stream ends. An error from open is TaskStats's error.
type UsageSource func(ctx context.Context) (next func() (*TaskResourceUsage, bool), close func(), err error)

// StreamUsage is the body of Driver.TaskStats: it opens src, then one
// goroutine sends what next returns until next reports false, ctx ends or
// exited closes, and then closes the channel.
func StreamUsage(ctx context.Context, exited <-chan struct{}, src UsageSource) (<-chan *TaskResourceUsage, error) {
	ctx, cancel := context.WithCancel(ctx)
	next, closeSrc, err := src(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	ch := make(chan *TaskResourceUsage)
	go func() {
		defer close(ch)
		defer cancel()
		if closeSrc != nil {
			defer closeSrc()
		}
		go func() {
			select {
			case <-exited:
				cancel() // ends a next blocked on the task
			case <-ctx.Done():
			}
		}()
		for {
			u, ok := next()
			if !ok {
				return
			}
			select {
			case ch <- u:
			case <-ctx.Done():
				return
			case <-exited:
				return
			}
		}
	}()
	return ch, nil
}

// Every is the UsageSource of a driver that samples a task itself: sample
// runs at once and then every interval, on the stream's goroutine (it may
// keep state between calls, such as the previous CPU counters).
func Every(interval time.Duration, sample func(now time.Time) *TaskResourceUsage) UsageSource {
	return func(ctx context.Context) (func() (*TaskResourceUsage, bool), func(), error) {
		tick := time.NewTicker(interval)
		first := true
		next := func() (*TaskResourceUsage, bool) {
			if !first {
				select {
				case <-tick.C:
				case <-ctx.Done():
					return nil, false
				}
			}
			first = false
			return sample(time.Now()), true
		}
		return next, tick.Stop, nil
	}
}
