package agent

import (
	"crypto/tls"
	"fmt"

	"github.com/nomadish/nomadish/internal/tlsutil"
	"github.com/nomadish/nomadish/rpcclient"
)

// setupTLS builds the RPC TLS configs and the RPC connection pool from the
// tls block, and wraps the bound HTTP listener in TLS when tls.http is set.
// Call it after binding a.ln and before starting the parts.
func (a *Agent) setupTLS() error {
	rpcTLS, err := tlsutil.NewRPC(&a.cfg.TLS, a.cfg.Region)
	if err != nil {
		return fmt.Errorf("agent: tls block (rpc): %w", err)
	}
	a.rpcTLS = rpcTLS
	var out *tls.Config
	if rpcTLS != nil {
		out = rpcTLS.Outgoing
	}
	a.rpcPool = rpcclient.NewPool(out, a.logger)
	httpTLS, err := tlsutil.HTTPServer(&a.cfg.TLS)
	if err != nil {
		return fmt.Errorf("agent: tls block (http): %w", err)
	}
	if httpTLS != nil {
		a.ln = tls.NewListener(a.ln, httpTLS)
	}
	if a.httpSelfTLS, err = tlsutil.HTTPSelf(&a.cfg.TLS); err != nil {
		return fmt.Errorf("agent: tls block (http): %w", err)
	}
	return nil
}

// dialServer is the client's RPCer for one server: an rpcclient.Client on
// the agent's shared pool (one yamux session per server, TLS when
// tls.rpc is set).
func (a *Agent) dialServer(addr string) *rpcclient.Client {
	return rpcclient.New([]string{addr}, a.logger, rpcclient.WithPool(a.rpcPool))
}
