package drivers

import (
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"strconv"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/nomadish/nomadish/drivers/base"
	pb "github.com/nomadish/nomadish/drivers/proto"
)

// Handshake is shared by the client and the plugin subprocess. Bump
// ProtocolVersion on an incompatible change to drivers/proto.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "NOMADISH_DRIVER_PLUGIN",
	MagicCookieValue: "c0d3b7e2-6a1f-4f9e-9d55-driver-plugin",
}

// pluginKey is the name the driver is dispensed under.
const pluginKey = "driver"

// ErrNotPlugin is returned by Serve when the process was not started by
// Launch (no handshake cookie in the environment).
var ErrNotPlugin = errors.New("drivers: this command is run by the nomadish client as a driver plugin, not by hand")

// grpcPlugin is the go-plugin glue: GRPCServer in the plugin, GRPCClient
// in the client.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl base.Driver // plugin side only
}

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterDriverServer(s, &grpcServer{impl: p.impl})
	return nil
}

func (p *grpcPlugin) GRPCClient(doneCtx context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &grpcClient{client: pb.NewDriverClient(c), doneCtx: doneCtx}, nil
}

// Serve runs the named driver as a plugin until the client kills it. It is
// the whole body of the hidden `nomadish plugin <name>` command. Nothing
// but go-plugin may write to stdout; logs go as JSON to stderr, which
// go-plugin forwards into the client's logger. It returns ErrNotPlugin
// when run by hand, or an error for an unknown driver name.
func Serve(c Catalog, name string) error {
	if os.Getenv(Handshake.MagicCookieKey) != Handshake.MagicCookieValue {
		return ErrNotPlugin
	}
	logger := hclog.New(&hclog.LoggerOptions{
		Name:       name,
		Level:      hclog.Debug,
		Output:     os.Stderr, // captured before plugin.Serve redirects os.Stderr
		JSONFormat: true,
	})
	d, err := c.New(name, logger)
	if err != nil {
		return err
	}
	watchParent(logger)
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         plugin.PluginSet{pluginKey: &grpcPlugin{impl: d}},
		GRPCServer:      plugin.DefaultGRPCServer,
		Logger:          logger,
	})
	return nil
}

// Launch starts `exe plugin <name>` and returns the client side of its
// driver and a kill func (idempotent; asks the plugin to exit, then kills
// it after 2 s). Running tasks survive the plugin: they are in their own
// process groups and can be recovered by a new plugin with RecoverTask.
// If the plugin dies, calls return errors wrapping ErrPluginShutdown.
func Launch(exe, name string, logger hclog.Logger) (base.Driver, func(), error) {
	d, c, err := launch(exe, name, logger)
	if err != nil {
		return nil, nil, err
	}
	return d, c.Kill, nil
}

// launch is Launch that also returns the go-plugin client (tests use its pid).
func launch(exe, name string, logger hclog.Logger) (base.Driver, *plugin.Client, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	cmd := osexec.Command(exe, "plugin", name)
	cmd.Env = append(pluginEnv(os.Environ()), parentPIDEnv+"="+strconv.Itoa(os.Getpid()))
	c := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  Handshake,
		Plugins:          plugin.PluginSet{pluginKey: &grpcPlugin{}},
		Cmd:              cmd,
		SkipHostEnv:      true, // cmd.Env is the agent's env without credentials (plugin_env.go)
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           logger.Named("plugin." + name),
	})
	rpc, err := c.Client()
	if err != nil {
		c.Kill()
		return nil, nil, fmt.Errorf("drivers: launching %s plugin: %w", name, err)
	}
	raw, err := rpc.Dispense(pluginKey)
	if err != nil {
		c.Kill()
		return nil, nil, fmt.Errorf("drivers: dispensing %s plugin: %w", name, err)
	}
	d, ok := raw.(base.Driver)
	if !ok {
		c.Kill()
		return nil, nil, fmt.Errorf("drivers: %s plugin gave %T, not a Driver", name, raw)
	}
	return d, c, nil
}
