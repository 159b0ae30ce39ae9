package pluginmgr

import (
	"context"
	"fmt"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// SignalTask forwards to the plugin (base.Driver.SignalTask); a plugin
// without it answers base.ErrNotSupported.
func (p *proxy) SignalTask(id string, signal string) error {
	pl, err := p.current()
	if err != nil {
		return err
	}
	s, ok := pl.(interface {
		SignalTask(taskID string, signal string) error
	})
	if !ok {
		return fmt.Errorf("driver %q: %w", p.name, base.ErrNotSupported)
	}
	return p.check(s.SignalTask(id, signal))
}

// TaskStats forwards to the current plugin process. The stream ends with
// that process: the caller asks again once the plugin was relaunched (the
// task runner's stats collector does). A plugin without it answers
// base.ErrNotSupported.
func (p *proxy) TaskStats(ctx context.Context, id string, interval time.Duration) (<-chan *base.TaskResourceUsage, error) {
	pl, err := p.current()
	if err != nil {
		return nil, err
	}
	s, ok := pl.(interface {
		TaskStats(ctx context.Context, taskID string, interval time.Duration) (<-chan *base.TaskResourceUsage, error)
	})
	if !ok {
		return nil, fmt.Errorf("driver %q: %w", p.name, base.ErrNotSupported)
	}
	ch, err := s.TaskStats(ctx, id, interval)
	return ch, p.check(err)
}
