package nodeconn

import (
	"context"
	"io"
	"net"
	"sync"
	"time"

	"github.com/nomadish/nomadish/rpcclient"
)

// ServeDial serves an RPCNodeDial connection (its protocol byte read): it
// reads the NodeDialRequest, opens a connection to the node (a forwarded
// request only over this server's own tunnel, so requests never loop),
// answers, then copies bytes both ways until either side ends. conn is
// closed when it returns.
func (r *Registry) ServeDial(conn net.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(rpcclient.HandshakeTimeout))
	var req rpcclient.NodeDialRequest
	if err := rpcclient.ReadFrame(conn, &req); err != nil {
		r.logger.Debug("bad node dial handshake", "remote", conn.RemoteAddr(), "error", err)
		return
	}
	var node net.Conn
	var err error
	if req.Forwarded {
		node, err = r.DialLocal(req.NodeID)
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), rpcclient.HandshakeTimeout)
		node, err = r.Dial(ctx, req.NodeID)
		cancel()
	}
	if werr := rpcclient.WriteFrame(conn, rpcclient.ReplyFor(err)); werr != nil || err != nil {
		if node != nil {
			node.Close()
		}
		return
	}
	conn.SetDeadline(time.Time{})
	Bridge(conn, node)
}

// Bridge copies a to b and b to a until either direction ends, then
// closes both.
func Bridge(a, b net.Conn) {
	var once sync.Once
	closeBoth := func() { a.Close(); b.Close() }
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = io.Copy(a, b); once.Do(closeBoth) })
	wg.Go(func() { _, _ = io.Copy(b, a); once.Do(closeBoth) })
	wg.Wait()
}
