package drivers

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/nomadish/nomadish/drivers/base"
	pb "github.com/nomadish/nomadish/drivers/proto"
)

// streamOK is the header a streaming RPC sends once the task was found, so
// the client can return lookup errors from WaitTask/TaskStats themselves.
var streamOK = metadata.Pairs("nomadish-stream", "ok")

// grpcServer serves a Driver inside the plugin process.
type grpcServer struct {
	pb.UnimplementedDriverServer
	impl base.Driver
}

// grpcCodes maps the shared sentinels to gRPC codes (and back, in the
// client). Unavailable is kept for transport failures (plugin gone).
var grpcCodes = []struct {
	err  error
	code codes.Code
}{
	{base.ErrTaskNotFound, codes.NotFound},
	{base.ErrTaskExists, codes.AlreadyExists},
	{base.ErrTaskRunning, codes.FailedPrecondition},
	{base.ErrDisabled, codes.PermissionDenied},
	{base.ErrNotSupported, codes.Unimplemented},
}

// toStatus turns a driver error into a gRPC status error.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	for _, m := range grpcCodes {
		if errors.Is(err, m.err) {
			return status.Error(m.code, err.Error())
		}
	}
	return status.Error(codes.Unknown, err.Error())
}

func (s *grpcServer) Fingerprint(ctx context.Context, _ *pb.FingerprintRequest) (*pb.FingerprintResponse, error) {
	fp, err := s.impl.Fingerprint(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.FingerprintResponse{Health: string(fp.Health), HealthDescription: fp.HealthDescription, Attributes: fp.Attributes}, nil
}

func (s *grpcServer) SetConfig(_ context.Context, req *pb.SetConfigRequest) (*pb.SetConfigResponse, error) {
	cfg, err := decodeConfig(req.ConfigMsgpack)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &pb.SetConfigResponse{}, toStatus(s.impl.SetConfig(cfg))
}

func (s *grpcServer) Capabilities(context.Context, *pb.CapabilitiesRequest) (*pb.CapabilitiesResponse, error) {
	c, err := s.impl.Capabilities()
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.CapabilitiesResponse{SendSignals: c.SendSignals, Exec: c.Exec, FsIsolation: string(c.FSIsolation),
		ResourceLimits: c.ResourceLimits, UpdateResources: c.UpdateResources, MustInitiateNetwork: c.MustInitiateNetwork}, nil
}

func (s *grpcServer) UpdateTask(_ context.Context, req *pb.UpdateTaskRequest) (*pb.Empty, error) {
	u, ok := s.impl.(base.ResourceUpdater)
	if !ok {
		return nil, toStatus(base.ErrNotSupported)
	}
	var res *base.Resources
	if r := req.Resources; r != nil {
		rr := resourcesFromPB(r)
		res = &rr
	}
	return &pb.Empty{}, toStatus(u.UpdateTask(req.TaskId, res))
}

func (s *grpcServer) StartTask(_ context.Context, req *pb.StartTaskRequest) (*pb.StartTaskResponse, error) {
	cfg, err := taskConfigFromPB(req.Task)
	if err != nil || cfg == nil {
		return nil, status.Errorf(codes.InvalidArgument, "drivers: bad task config: %v", err)
	}
	h, err := s.impl.StartTask(cfg)
	if err != nil {
		return nil, toStatus(err)
	}
	ph, err := handleToPB(h)
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.StartTaskResponse{Handle: ph}, nil
}

// DiscoverTask forwards to the driver's base.TaskDiscoverer; a driver
// without it answers ErrNotSupported.
func (s *grpcServer) DiscoverTask(_ context.Context, req *pb.StartTaskRequest) (*pb.StartTaskResponse, error) {
	d, ok := s.impl.(base.TaskDiscoverer)
	if !ok {
		return nil, toStatus(base.ErrNotSupported)
	}
	cfg, err := taskConfigFromPB(req.Task)
	if err != nil || cfg == nil {
		return nil, status.Errorf(codes.InvalidArgument, "drivers: bad task config: %v", err)
	}
	h, err := d.DiscoverTask(cfg)
	if err != nil {
		return nil, toStatus(err)
	}
	ph, err := handleToPB(h)
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.StartTaskResponse{Handle: ph}, nil
}

func (s *grpcServer) WaitTask(req *pb.TaskIDRequest, stream pb.Driver_WaitTaskServer) error {
	ch, err := s.impl.WaitTask(stream.Context(), req.TaskId)
	if err != nil {
		return toStatus(err)
	}
	if err := stream.SendHeader(streamOK); err != nil {
		return err
	}
	res, ok := <-ch
	if !ok {
		return status.Error(codes.Canceled, "drivers: wait cancelled")
	}
	return stream.Send(exitToPB(res))
}

func (s *grpcServer) StopTask(_ context.Context, req *pb.StopTaskRequest) (*pb.Empty, error) {
	return &pb.Empty{}, toStatus(s.impl.StopTask(req.TaskId, time.Duration(req.TimeoutNs), req.Signal))
}

func (s *grpcServer) DestroyTask(_ context.Context, req *pb.DestroyTaskRequest) (*pb.Empty, error) {
	return &pb.Empty{}, toStatus(s.impl.DestroyTask(req.TaskId, req.Force))
}

func (s *grpcServer) InspectTask(_ context.Context, req *pb.TaskIDRequest) (*pb.TaskStatus, error) {
	st, err := s.impl.InspectTask(req.TaskId)
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.TaskStatus{
		Id: st.ID, Name: st.Name, State: string(st.State),
		StartedAtUnixNano: unixNano(st.StartedAt), CompletedAtUnixNano: unixNano(st.CompletedAt),
		ExitResult: exitToPB(st.ExitResult), DriverAttributes: st.DriverAttributes,
	}, nil
}

func (s *grpcServer) SignalTask(_ context.Context, req *pb.SignalTaskRequest) (*pb.Empty, error) {
	return &pb.Empty{}, toStatus(s.impl.SignalTask(req.TaskId, req.Signal))
}

func (s *grpcServer) TaskStats(req *pb.TaskStatsRequest, stream pb.Driver_TaskStatsServer) error {
	ch, err := s.impl.TaskStats(stream.Context(), req.TaskId, time.Duration(req.IntervalNs))
	if err != nil {
		return toStatus(err)
	}
	if err := stream.SendHeader(streamOK); err != nil {
		return err
	}
	for u := range ch {
		if err := stream.Send(usageToPB(u)); err != nil {
			return err
		}
	}
	return nil
}

func (s *grpcServer) RecoverTask(_ context.Context, req *pb.RecoverTaskRequest) (*pb.Empty, error) {
	h, err := handleFromPB(req.Handle)
	if err != nil || h == nil {
		return nil, status.Errorf(codes.InvalidArgument, "drivers: bad task handle: %v", err)
	}
	return &pb.Empty{}, toStatus(s.impl.RecoverTask(h))
}
