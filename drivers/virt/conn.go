package virt

import (
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/digitalocean/go-libvirt/socket/dialers"
)

// DefaultURI is the plugin config's uri when none is given.
const DefaultURI = "qemu:///system"

// DefaultSocket is libvirtd's unix socket for qemu:///system.
const DefaultSocket = "/run/libvirt/libvirt-sock"

// dialTimeout bounds connecting to the daemon's socket.
const dialTimeout = 5 * time.Second

// endpoint is where the driver reaches libvirtd: the URI it opens and the
// unix socket it dials.
type endpoint struct {
	URI    string
	Socket string
}

// parseURI accepts qemu:///system, optionally with ?socket=/path (libvirt's
// own parameter for a non-default socket). Errors name the key.
func parseURI(s string) (endpoint, error) {
	u, err := url.Parse(s)
	if err != nil {
		return endpoint{}, fmt.Errorf("uri: %w", err)
	}
	if u.Scheme != "qemu" || u.Host != "" || u.Path != "/system" {
		return endpoint{}, fmt.Errorf("uri: %q: only the local qemu:///system is supported", s)
	}
	ep := endpoint{URI: "qemu:///system", Socket: DefaultSocket}
	for k, v := range u.Query() {
		if k != "socket" {
			return endpoint{}, fmt.Errorf("uri: %q: unknown parameter %q (known: socket)", s, k)
		}
		ep.Socket = v[0]
	}
	return ep, nil
}

// conn is the driver's one connection to libvirtd, dialled on first use and
// again after it drops. Safe for concurrent use.
type conn struct {
	mu sync.Mutex // guards ep, l
	ep endpoint
	l  *libvirt.Libvirt // nil until connected
}

// set changes the endpoint; an open connection to another one is closed.
func (c *conn) set(ep endpoint) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ep != ep && c.l != nil {
		_ = c.l.Disconnect()
		c.l = nil
	}
	c.ep = ep
}

// get returns a connected client, dialling when there is none or it dropped.
func (c *conn) get() (*libvirt.Libvirt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.l != nil && c.l.IsConnected() {
		return c.l, nil
	}
	ep := c.ep
	if ep.Socket == "" {
		ep = endpoint{URI: DefaultURI, Socket: DefaultSocket}
	}
	l := libvirt.NewWithDialer(dialers.NewLocal(dialers.WithSocket(ep.Socket), dialers.WithLocalTimeout(dialTimeout)))
	if err := l.ConnectToURI(libvirt.ConnectURI(ep.URI)); err != nil {
		return nil, fmt.Errorf("virt: connecting to libvirtd at %s: %w", ep.Socket, err)
	}
	c.l = l
	return l, nil
}

// isNoDomain reports whether err is libvirt's "domain not found".
func isNoDomain(err error) bool { return libvirt.IsNotFound(err) }
