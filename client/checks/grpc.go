package checks

import (
	"context"
	"crypto/tls"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/nomadish/nomadish/structs"
)

// grpcCheck is a grpc check through the standard grpc.health.v1 service:
// passing when the server answers SERVING for grpc_service ("" : the
// server as a whole), critical otherwise.
type grpcCheck struct {
	addr, service string
	creds         credentials.TransportCredentials
}

func newGRPC(c *structs.ServiceCheck, t Target) *grpcCheck {
	creds := insecure.NewCredentials()
	if c.GRPCUseTLS {
		creds = credentials.NewTLS(&tls.Config{InsecureSkipVerify: c.TLSSkipVerify, ServerName: c.TLSServerName}) //nolint:gosec // the job's tls_skip_verify
	}
	return &grpcCheck{addr: t.hostPort(), service: c.GRPCService, creds: creds}
}

func (g *grpcCheck) Check(ctx context.Context) Result {
	conn, err := grpc.NewClient(g.addr, grpc.WithTransportCredentials(g.creds))
	if err != nil {
		return Result{Status: structs.CheckCritical, Output: fmt.Sprintf("gRPC %s: %v", g.addr, err)}
	}
	defer conn.Close()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: g.service})
	if err != nil {
		return Result{Status: structs.CheckCritical, Output: fmt.Sprintf("gRPC %s service %q: %v", g.addr, g.service, err)}
	}
	out := fmt.Sprintf("gRPC %s service %q: %s", g.addr, g.service, resp.GetStatus())
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return Result{Status: structs.CheckCritical, Output: out}
	}
	return Result{Status: structs.CheckPassing, Output: out}
}
