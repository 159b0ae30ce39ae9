package pluginmgr

import (
	"context"
	"fmt"

	"github.com/nomadish/nomadish/drivers/base"
)

var _ base.ExecStreamer = (*proxy)(nil)

// ExecTaskStreaming forwards to the plugin's current process
// (base.ExecStreamer); a plugin without it answers base.ErrNotSupported.
// An exec in progress ends with an error wrapping base.ErrPluginShutdown
// if the plugin dies; it is not carried over to a relaunched plugin.
func (p *proxy) ExecTaskStreaming(ctx context.Context, id string, opts *base.ExecOptions) (*base.ExitResult, error) {
	pl, err := p.current()
	if err != nil {
		return nil, err
	}
	ex, ok := pl.(base.ExecStreamer)
	if !ok {
		return nil, fmt.Errorf("driver %q: exec: %w", p.name, base.ErrNotSupported)
	}
	res, err := ex.ExecTaskStreaming(ctx, id, opts)
	return res, p.check(err)
}
