package drivers

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nomadish/nomadish/drivers/base"
)

// A call that races the close of a dead plugin's connection (gRPC's
// Canceled "the client connection is closing", before go-plugin cancels
// doneCtx) is the plugin going away; another Canceled is not.
func TestFromStatusConnClosingIsShutdown(t *testing.T) {
	c := &grpcClient{doneCtx: context.Background()}
	closing := status.Error(codes.Canceled, "grpc: the client connection is closing")
	if err := c.fromStatus(closing); !errors.Is(err, base.ErrPluginShutdown) {
		t.Fatalf("conn closing = %v, want ErrPluginShutdown", err)
	}
	if err := c.fromStatus(status.Error(codes.Canceled, "context canceled")); errors.Is(err, base.ErrPluginShutdown) {
		t.Fatalf("a cancelled call = %v, must not be ErrPluginShutdown", err)
	}
}
