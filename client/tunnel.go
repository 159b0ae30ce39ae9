package client

import (
	"net"
	"net/http"
	"time"
)

// tunnelHeaderTimeout bounds reading a request's headers on the tunnel.
const tunnelHeaderTimeout = 30 * time.Second

// tunnelStable is how long a tunnel must have lasted for its loss to
// restart the backoff from the minimum.
const tunnelStable = 30 * time.Second

// TunnelDialer opens the node tunnel to the server at addr, authenticated
// as node nodeID with its secret, and returns the listener of the HTTP
// connections the server opens through it (e.g. the yamux session of an
// rpcclient.DialNodeTunnel connection). The listener's Accept fails once
// the tunnel broke; Close ends it.
type TunnelDialer func(addr, nodeID, secret string) (net.Listener, error)

// TunnelConfig is what StartTunnel needs from the agent.
type TunnelConfig struct {
	// Handler serves the requests the servers forward (the agent's
	// client-only HTTP API).
	Handler http.Handler
	// Servers returns the servers to keep a tunnel to, preferred first
	// (the client's server list, which follows its failover).
	Servers func() []string
	// Dial opens a tunnel to one server.
	Dial TunnelDialer
}

// StartTunnel keeps one node tunnel open to a server, so that any server
// can reach this client's allocations (logs, fs, exec, stats, signal,
// restart) even when the client is behind NAT: it dials the preferred
// server, serves cfg.Handler on the connections the server opens, and
// when the tunnel breaks (or cannot be opened: the node is not registered
// yet, the server is down) dials again with backoff, moving on to the next
// server. It runs until Shutdown. Call it once.
func (c *Client) StartTunnel(cfg TunnelConfig) {
	c.wg.Go(func() { c.runTunnel(cfg) })
}

// runTunnel is StartTunnel's loop (its own goroutine).
func (c *Client) runTunnel(cfg TunnelConfig) {
	backoff, next := time.Duration(0), 0
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		servers := cfg.Servers()
		if len(servers) == 0 {
			backoff = nextBackoff(backoff)
			t.Reset(backoff)
			continue
		}
		addr := servers[next%len(servers)]
		start := time.Now()
		err := c.serveTunnel(cfg, addr)
		if err == nil && time.Since(start) >= tunnelStable {
			backoff = 0
		} else {
			next++ // try another server next time
		}
		if c.ctx.Err() != nil {
			return
		}
		if err != nil {
			c.logger.Debug("node tunnel failed", "server", addr, "error", err)
		} else {
			c.logger.Info("node tunnel to server lost; reconnecting", "server", addr)
		}
		backoff = nextBackoff(backoff)
		t.Reset(backoff)
	}
}

// serveTunnel opens a tunnel to addr and serves it until it breaks or the
// client shuts down: the dial's error, or nil once an open tunnel ended.
func (c *Client) serveTunnel(cfg TunnelConfig, addr string) error {
	ln, err := cfg.Dial(addr, c.NodeID(), c.secret())
	if err != nil {
		return err
	}
	c.logger.Debug("node tunnel open", "server", addr)
	srv := &http.Server{Handler: cfg.Handler, ReadHeaderTimeout: tunnelHeaderTimeout}
	stop := make(chan struct{})
	go func() {
		select {
		case <-c.ctx.Done():
			srv.Close() // closes ln too: Serve returns
		case <-stop:
		}
	}()
	_ = srv.Serve(ln) // returns once the tunnel broke (Accept failed) or srv closed
	close(stop)
	srv.Close()
	return nil
}
