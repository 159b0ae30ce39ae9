package drivers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nomadish/nomadish/drivers/base"
	pb "github.com/nomadish/nomadish/drivers/proto"
)

// grpcClient is the client-side Driver talking to a plugin process. Every
// call is cancelled when the plugin exits (doneCtx), so a dead plugin gives
// ErrPluginShutdown instead of a hang.
type grpcClient struct {
	client  pb.DriverClient
	doneCtx context.Context // cancelled by go-plugin when the plugin process exits
}

var (
	_ base.Driver         = (*grpcClient)(nil)
	_ base.TaskDiscoverer = (*grpcClient)(nil)
)

// callCtx merges parent with the plugin's lifetime.
func (c *grpcClient) callCtx(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	stop := context.AfterFunc(c.doneCtx, cancel)
	return ctx, func() { stop(); cancel() }
}

// fromStatus rebuilds a driver error from a gRPC error.
func (c *grpcClient) fromStatus(err error) error {
	if err == nil {
		return nil
	}
	st, _ := status.FromError(err)
	if c.doneCtx.Err() != nil || st.Code() == codes.Unavailable || connClosing(st) {
		return fmt.Errorf("%w: %s", base.ErrPluginShutdown, st.Message())
	}
	for _, m := range grpcCodes {
		if st.Code() == m.code {
			return &codedError{msg: st.Message(), sentinel: m.err}
		}
	}
	return errors.New(st.Message())
}

// connClosing reports gRPC's "the client connection is closing": the call
// raced the close of a dead plugin's connection (before go-plugin cancelled
// doneCtx). It is the plugin going away, not the call's failure, so the task
// runner waits for the relaunch instead of marking its task dead.
func connClosing(st *status.Status) bool {
	return st.Code() == codes.Canceled && st.Message() == "grpc: the client connection is closing"
}

func (c *grpcClient) Fingerprint(ctx context.Context) (*base.Fingerprint, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	r, err := c.client.Fingerprint(ctx, &pb.FingerprintRequest{})
	if err != nil {
		return nil, c.fromStatus(err)
	}
	return &base.Fingerprint{Health: base.HealthState(r.Health), HealthDescription: r.HealthDescription, Attributes: r.Attributes}, nil
}

func (c *grpcClient) SetConfig(cfg map[string]any) error {
	b, err := encodeConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := c.callCtx(context.Background())
	defer cancel()
	_, err = c.client.SetConfig(ctx, &pb.SetConfigRequest{ConfigMsgpack: b})
	return c.fromStatus(err)
}

func (c *grpcClient) Capabilities() (*base.Capabilities, error) {
	ctx, cancel := c.callCtx(context.Background())
	defer cancel()
	r, err := c.client.Capabilities(ctx, &pb.CapabilitiesRequest{})
	if err != nil {
		return nil, c.fromStatus(err)
	}
	return &base.Capabilities{SendSignals: r.SendSignals, Exec: r.Exec, FSIsolation: base.FSIsolation(r.FsIsolation),
		ResourceLimits: r.ResourceLimits, UpdateResources: r.UpdateResources, MustInitiateNetwork: r.MustInitiateNetwork}, nil
}

// UpdateTask: a plugin whose driver lacks it answers ErrNotSupported.
func (c *grpcClient) UpdateTask(taskID string, res *base.Resources) error {
	ctx, cancel := c.callCtx(context.Background())
	defer cancel()
	req := &pb.UpdateTaskRequest{TaskId: taskID}
	if res != nil {
		req.Resources = resourcesToPB(*res)
	}
	_, err := c.client.UpdateTask(ctx, req)
	return c.fromStatus(err)
}

func (c *grpcClient) StartTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	pc, err := taskConfigToPB(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.callCtx(context.Background())
	defer cancel()
	r, err := c.client.StartTask(ctx, &pb.StartTaskRequest{Task: pc})
	if err != nil {
		return nil, c.fromStatus(err)
	}
	return handleFromPB(r.Handle)
}

// DiscoverTask: a plugin whose driver lacks it answers ErrNotSupported.
func (c *grpcClient) DiscoverTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	pc, err := taskConfigToPB(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.callCtx(context.Background())
	defer cancel()
	r, err := c.client.DiscoverTask(ctx, &pb.StartTaskRequest{Task: pc})
	if err != nil {
		return nil, c.fromStatus(err)
	}
	return handleFromPB(r.Handle)
}

// openStream waits for the server's header (sent once the task was found)
// so lookup errors come back from WaitTask/TaskStats themselves.
func (c *grpcClient) openStream(s grpc.ClientStream) error {
	md, err := s.Header()
	if err != nil {
		return c.fromStatus(err)
	}
	if md == nil {
		if err := s.RecvMsg(new(pb.Empty)); err != nil && err != io.EOF {
			return c.fromStatus(err)
		}
		return fmt.Errorf("drivers: stream ended before it started")
	}
	return nil
}

func (c *grpcClient) WaitTask(ctx context.Context, taskID string) (<-chan *base.ExitResult, error) {
	sctx, cancel := c.callCtx(ctx)
	stream, err := c.client.WaitTask(sctx, &pb.TaskIDRequest{TaskId: taskID})
	if err != nil {
		cancel()
		return nil, c.fromStatus(err)
	}
	if err := c.openStream(stream); err != nil {
		cancel()
		return nil, err
	}
	ch := make(chan *base.ExitResult, 1)
	go func() {
		defer close(ch)
		defer cancel()
		r, err := stream.Recv()
		switch {
		case err == nil:
			ch <- exitFromPB(r)
		case ctx.Err() != nil:
			// the caller stopped waiting: close without a value
		default:
			ch <- &base.ExitResult{Err: c.fromStatus(err)}
		}
	}()
	return ch, nil
}

func (c *grpcClient) StopTask(taskID string, timeout time.Duration, signal string) error {
	ctx, cancel := c.callCtx(context.Background())
	defer cancel()
	_, err := c.client.StopTask(ctx, &pb.StopTaskRequest{TaskId: taskID, TimeoutNs: int64(timeout), Signal: signal})
	return c.fromStatus(err)
}

func (c *grpcClient) DestroyTask(taskID string, force bool) error {
	ctx, cancel := c.callCtx(context.Background())
	defer cancel()
	_, err := c.client.DestroyTask(ctx, &pb.DestroyTaskRequest{TaskId: taskID, Force: force})
	return c.fromStatus(err)
}

func (c *grpcClient) InspectTask(taskID string) (*base.TaskStatus, error) {
	ctx, cancel := c.callCtx(context.Background())
	defer cancel()
	r, err := c.client.InspectTask(ctx, &pb.TaskIDRequest{TaskId: taskID})
	if err != nil {
		return nil, c.fromStatus(err)
	}
	return &base.TaskStatus{
		ID: r.Id, Name: r.Name, State: base.TaskState(r.State),
		StartedAt: fromUnixNano(r.StartedAtUnixNano), CompletedAt: fromUnixNano(r.CompletedAtUnixNano),
		ExitResult: exitFromPB(r.ExitResult), DriverAttributes: r.DriverAttributes,
	}, nil
}

func (c *grpcClient) SignalTask(taskID string, signal string) error {
	ctx, cancel := c.callCtx(context.Background())
	defer cancel()
	_, err := c.client.SignalTask(ctx, &pb.SignalTaskRequest{TaskId: taskID, Signal: signal})
	return c.fromStatus(err)
}

// TaskStats: the channel closes when the task exits, ctx ends or the
// plugin dies.
func (c *grpcClient) TaskStats(ctx context.Context, taskID string, interval time.Duration) (<-chan *base.TaskResourceUsage, error) {
	sctx, cancel := c.callCtx(ctx)
	stream, err := c.client.TaskStats(sctx, &pb.TaskStatsRequest{TaskId: taskID, IntervalNs: int64(interval)})
	if err != nil {
		cancel()
		return nil, c.fromStatus(err)
	}
	if err := c.openStream(stream); err != nil {
		cancel()
		return nil, err
	}
	ch := make(chan *base.TaskResourceUsage)
	go func() {
		defer close(ch)
		defer cancel()
		for {
			r, err := stream.Recv()
			if err != nil {
				return
			}
			select {
			case ch <- usageFromPB(r):
			case <-sctx.Done():
				return
			}
		}
	}()
	return ch, nil
}

func (c *grpcClient) RecoverTask(h *base.TaskHandle) error {
	ph, err := handleToPB(h)
	if err != nil {
		return err
	}
	ctx, cancel := c.callCtx(context.Background())
	defer cancel()
	_, err = c.client.RecoverTask(ctx, &pb.RecoverTaskRequest{Handle: ph})
	return c.fromStatus(err)
}
