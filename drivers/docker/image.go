package docker

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/registry"
	"github.com/docker/docker/client"
	"github.com/docker/docker/errdefs"
)

// ensureImage makes the task's image available and returns its ID: the
// local image when present (unless force_pull), else a pull. A failed pull
// is an error saying so; with auth credentials and auth_soft_fail, a pull
// that fails with them is retried without.
func ensureImage(ctx context.Context, cli *client.Client, tc *taskConfig) (string, error) {
	if !tc.ForcePull {
		inspect, err := cli.ImageInspect(ctx, tc.Image)
		if err == nil {
			return inspect.ID, nil
		}
		if !errdefs.IsNotFound(err) {
			return "", fmt.Errorf("inspecting image %q: %w", tc.Image, err)
		}
	}
	err := pull(ctx, cli, tc.Image, tc.Auth)
	if err != nil && tc.Auth != nil && tc.AuthSoftFail {
		err = pull(ctx, cli, tc.Image, nil)
	}
	if err != nil {
		//lint:ignore ST1005 the task event reads as Nomad's: "Failed to pull `image`: ..."
		return "", fmt.Errorf("Failed to pull `%s`: %w", tc.Image, err)
	}
	inspect, err := cli.ImageInspect(ctx, tc.Image)
	if err != nil {
		return "", fmt.Errorf("inspecting pulled image %q: %w", tc.Image, err)
	}
	return inspect.ID, nil
}

// pull pulls ref and reads the progress stream to its end; an error
// reported in the stream is returned.
func pull(ctx context.Context, cli *client.Client, ref string, auth *authConfig) error {
	opts := image.PullOptions{}
	if auth != nil {
		b, err := json.Marshal(registry.AuthConfig{Username: auth.Username, Password: auth.Password, ServerAddress: auth.ServerAddress})
		if err != nil {
			return err
		}
		opts.RegistryAuth = base64.URLEncoding.EncodeToString(b)
	}
	rc, err := cli.ImagePull(ctx, ref, opts)
	if err != nil {
		return err
	}
	defer rc.Close()
	dec := json.NewDecoder(rc)
	for {
		var msg struct {
			Error       string `json:"error"`
			ErrorDetail struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&msg); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("reading pull progress: %w", err)
		}
		if m := msg.Error; m != "" || msg.ErrorDetail.Message != "" {
			if m == "" {
				m = msg.ErrorDetail.Message
			}
			return errors.New(strings.TrimSpace(m))
		}
	}
}
