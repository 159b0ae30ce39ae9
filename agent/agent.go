package agent

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/client"
	"github.com/nomadish/nomadish/internal/connlimit"
	"github.com/nomadish/nomadish/internal/telemetry"
	"github.com/nomadish/nomadish/internal/tlsutil"
	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/server"
	"github.com/nomadish/nomadish/structs"
)

// httpShutdownGrace is how long Shutdown lets HTTP requests finish before
// closing their connections.
const httpShutdownGrace = time.Second

// ErrNilConfig is returned by New without a config.
var ErrNilConfig = errors.New("agent: nil config")

// Agent is a running nomadish agent: a server, a client or both, and the
// HTTP API. Its methods are safe for concurrent use.
type Agent struct {
	cfg    *config.Config
	logger hclog.Logger

	// Set by New, read-only afterwards.
	server      *server.Server        // nil when the server is not enabled
	client      *client.Client        // nil when the client is not enabled
	rpcClient   *client.ServerManager // nil when a server runs in process
	rpc         RPCer                 // what the HTTP API calls
	ln          net.Listener          // the HTTP listener
	httpSrv     *http.Server
	rpcTLS      *tlsutil.RPC         // nil without tls.rpc (agent_tls.go)
	httpSelfTLS *tls.Config          // the client's HTTPS config for this agent's API; nil without tls.http
	rpcPool     *rpcclient.Pool      // connections to servers (agent_tls.go)
	cancelReq   context.CancelFunc   // ends the requests' contexts (log streams)
	telemetry   *telemetry.Telemetry // the agent's metrics sinks (agent_telemetry.go)

	shutdownOnce sync.Once
	shutdownErr  error // written once inside shutdownOnce
}

// Option adjusts how New builds an agent.
type Option func(*options)

type options struct {
	pluginExe string
}

// WithPluginExecutable sets the nomadish binary the client runs driver
// plugins from ("<exe> plugin <driver>"); the default is os.Executable(),
// which is not a nomadish binary in tests.
func WithPluginExecutable(path string) Option {
	return func(o *options) { o.pluginExe = path }
}

// New starts an agent from cfg: it binds the HTTP listener first (a port
// already in use fails at once), starts the server and the client
// concurrently (a client in the same process calls the server in process;
// otherwise it calls cfg.Client.Servers over TCP), then serves the HTTP API
// and logs one "agent ready" line. It does not wait for a leader or for the
// node to register. Ports may be 0 (any free port): HTTPAddr and RPCAddr
// tell the bound addresses. On error everything started is stopped.
func New(cfg *config.Config, logger hclog.Logger, opts ...Option) (*Agent, error) {
	start := time.Now()
	if cfg == nil {
		return nil, ErrNilConfig
	}
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("agent: invalid config:\n%w", err)
	}
	a := &Agent{cfg: cfg, logger: logger}
	ln, err := net.Listen("tcp", cfg.Addr("http"))
	if err != nil {
		return nil, fmt.Errorf("agent: listening for HTTP on %s: %w", cfg.Addr("http"), err)
	}
	a.ln = ln
	if err := a.setupTLS(); err != nil {
		a.Shutdown()
		return nil, err
	}
	if err := a.startTelemetry(); err != nil {
		a.Shutdown()
		return nil, err
	}
	if err := a.startParts(o); err != nil {
		a.Shutdown()
		return nil, err
	}
	a.serveHTTP()
	a.logger.Info("agent ready", "http", a.HTTPAddr(), "rpc", a.RPCAddr(),
		"server", a.server != nil, "client", a.client != nil, "dev", cfg.DevMode,
		"startup", time.Since(start).Round(time.Microsecond))
	return a, nil
}

// startParts starts the server (in a goroutine) and the client (here) at
// once. Until the server exists, the client's RPCs wait in a lazyRPC.
func (a *Agent) startParts(o options) error {
	var wg sync.WaitGroup
	var srvErr, cliErr error
	if a.cfg.Server.Enabled {
		lazy := newLazyRPC()
		a.rpc = lazy
		wg.Go(func() {
			srv, err := server.NewServer(a.serverConfig())
			if err == nil {
				a.server = srv
			}
			srvErr = err
			lazy.set(srv, err)
		})
	} else {
		a.rpcClient = client.NewServerManager(serverAddrs(a.cfg.Client.Servers), func(addr string) client.RPCer {
			return a.dialServer(addr)
		}, a.logger)
		a.rpc = a.rpcClient
	}
	if a.cfg.Client.Enabled {
		ccfg, err := a.clientConfig(o)
		if err == nil {
			a.client, err = client.New(ccfg, a.rpc)
		}
		cliErr = err
	}
	wg.Wait()
	if srvErr != nil {
		return fmt.Errorf("agent: starting server: %w", srvErr)
	}
	if cliErr != nil {
		return fmt.Errorf("agent: starting client: %w", cliErr)
	}
	if a.server != nil {
		a.rpc = a.server
	}
	return nil
}

// serveHTTP serves the API on the bound listener in a goroutine.
func (a *Agent) serveHTTP() {
	deps := httpDeps{RPC: a.rpc, Parse: parseJob, Self: a.info, Region: a.cfg.Region,
		Logger: a.logger.Named("http"), ACLEnabled: a.cfg.ACL.Enabled, Metrics: a.telemetry}
	if a.client != nil {
		deps.Logs = a.client
	}
	if a.server != nil {
		deps.Cluster = a.server.Cluster() // http_cluster.go
		// The event stream (http_events.go).
		if b := a.server.Events(); b != nil {
			deps.Events = b
		} else {
			deps.EventsDisabled = true
		}
	}
	if il, ok := a.logger.(hclog.InterceptLogger); ok {
		deps.LogSinks = il // http_monitor.go
	}
	deps.Nodes = a.nodeDialer()     // agent_tunnel.go
	deps.Origins = a.originPolicy() // http_origin.go
	// A client-only agent's event stream (http_events_forward.go).
	if a.server == nil && a.rpcClient != nil {
		deps.Servers = &serversHTTPDialer{servers: a.rpcClient.Servers, tls: a.outgoingRPCTLS()}
	}
	deps.EnableDebug = a.cfg.EnableDebug
	deps.UIEnabled = a.cfg.UI.Enabled // http_ui.go
	ctx, cancel := context.WithCancel(context.Background())
	a.cancelReq = cancel
	lim := a.cfg.Limits
	tracker := newConnTracker(lim.HTTPMaxConnsPerClient, httpConnBudget(raiseNoFile()),
		lim.HTTPSHandshakeTimeout, a.logger.Named("http")) // http_limits.go
	api := newHTTPServer(deps)
	if a.server != nil { // client-only agents' event streams (http_events_forward.go)
		a.server.SetHTTPConnHandler(serverHTTPConns(api, a.logger.Named("http")))
	}
	if a.client != nil {
		a.startTunnel(api) // agent_tunnel.go
	}
	a.httpSrv = &http.Server{
		Handler:           limitRequests(api, connlimit.New(lim.HTTPMaxConnsPerClient), tracker),
		ReadHeaderTimeout: httpReadHeaderTimeout,
		IdleTimeout:       httpIdleTimeout,
		ConnState:         tracker.ConnState,
		ConnContext:       tracker.ConnContext,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          a.logger.Named("http").StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}),
	}
	go func() {
		if err := a.httpSrv.Serve(a.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.logger.Error("HTTP server stopped", "error", err)
		}
	}()
}

// HTTPAddr returns the bound "host:port" of the HTTP API.
func (a *Agent) HTTPAddr() string { return a.ln.Addr().String() }

// RPCAddr returns the bound "host:port" of the server's RPC listener, ""
// when no server runs (or it has no listener).
func (a *Agent) RPCAddr() string {
	if a.server == nil {
		return ""
	}
	return a.server.RPCAddr()
}

// Server returns the in-process server, nil when not enabled.
func (a *Agent) Server() *server.Server { return a.server }

// Client returns the in-process client, nil when not enabled.
func (a *Agent) Client() *client.Client { return a.client }

// Shutdown stops the HTTP API (in-flight requests get a short grace), the
// client (in dev mode it kills its tasks and reports them to the server
// first), then the server. Safe to call more than once; later calls return
// the first call's error.
func (a *Agent) Shutdown() error {
	a.shutdownOnce.Do(func() {
		var errs structs.MultiError
		if a.httpSrv != nil {
			a.cancelReq()
			ctx, cancel := context.WithTimeout(context.Background(), httpShutdownGrace)
			if err := a.httpSrv.Shutdown(ctx); err != nil {
				a.httpSrv.Close()
			}
			cancel()
		} else if a.ln != nil {
			a.ln.Close()
		}
		if a.client != nil {
			errs.Add(a.client.Shutdown())
		}
		if a.rpcClient != nil {
			a.rpcClient.Close()
		}
		if a.server != nil {
			errs.Add(a.server.Shutdown())
		}
		if a.rpcPool != nil {
			a.rpcPool.Close()
		}
		if a.telemetry != nil {
			a.telemetry.Close()
		}
		a.shutdownErr = errs.ErrorOrNil()
		a.logger.Info("agent stopped")
	})
	return a.shutdownErr
}
