package drivers

import (
	"context"

	"github.com/nomadish/nomadish/drivers/base"
	pb "github.com/nomadish/nomadish/drivers/proto"
)

// The optional base.NetworkManager over the wire: the client side always
// has the methods; a plugin whose driver lacks them answers
// ErrNotSupported (gRPC Unimplemented), so callers check
// Capabilities.MustInitiateNetwork first.

var _ base.NetworkManager = (*grpcClient)(nil)

func (c *grpcClient) CreateNetwork(allocID string, req *base.NetworkCreateRequest) (*base.NetworkIsolation, bool, error) {
	ctx, cancel := c.callCtx(context.Background())
	defer cancel()
	in := &pb.CreateNetworkRequest{AllocId: allocID}
	if req != nil {
		in.Hostname = req.Hostname
	}
	r, err := c.client.CreateNetwork(ctx, in)
	if err != nil {
		return nil, false, c.fromStatus(err)
	}
	return networkFromPB(r.Isolation), r.Created, nil
}

func (c *grpcClient) DestroyNetwork(allocID string, spec *base.NetworkIsolation) error {
	ctx, cancel := c.callCtx(context.Background())
	defer cancel()
	_, err := c.client.DestroyNetwork(ctx, &pb.DestroyNetworkRequest{AllocId: allocID, Isolation: networkToPB(spec)})
	return c.fromStatus(err)
}

func (s *grpcServer) CreateNetwork(_ context.Context, req *pb.CreateNetworkRequest) (*pb.CreateNetworkResponse, error) {
	nm, ok := s.impl.(base.NetworkManager)
	if !ok {
		return nil, toStatus(base.ErrNotSupported)
	}
	spec, created, err := nm.CreateNetwork(req.AllocId, &base.NetworkCreateRequest{Hostname: req.Hostname})
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.CreateNetworkResponse{Isolation: networkToPB(spec), Created: created}, nil
}

func (s *grpcServer) DestroyNetwork(_ context.Context, req *pb.DestroyNetworkRequest) (*pb.Empty, error) {
	nm, ok := s.impl.(base.NetworkManager)
	if !ok {
		return nil, toStatus(base.ErrNotSupported)
	}
	return &pb.Empty{}, toStatus(nm.DestroyNetwork(req.AllocId, networkFromPB(req.Isolation)))
}
